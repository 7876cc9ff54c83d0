package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.PrometheusText.Family;

/**
 * {@code mesh serve}'s {@code GET /metrics} after known serves (two ungranted, one granted, one
 * refused), parsed by a strict Prometheus text-format parser: each family's name, type, unit
 * suffix, labels and value.
 */
class ServeMetricsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void metrics_afterKnownServes_parseAsPrometheusText_withEachFamilysNameTypeLabelsAndValue()
      throws Exception {
    String steward = key("steward.key");
    key("caller.key");
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "key_file": "steward.key", "journal": "steward.journal",
         "meter": "estimator",
         "backends": [
           {"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40, "work_per_token": 1},
           {"type": "reference", "name": "large", "fidelity": "F4", "uj_per_token": 900}
         ]}""");
    String text;
    long spentUj;
    long tokensEnergyOfSmall = 0;
    InProcessServe serve =
        InProcessServe.start(tmp.resolve("port"), "--config", config.toString(), "--fresh-chain");
    try (serve) {
      URI base = serve.base();
      HttpClient http = HttpClient.newHttpClient();
      for (String prompt : new String[] {"one", "two"}) {
        HttpResponse<String> r = post(http, base, chat("small", prompt, 6));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        tokensEnergyOfSmall +=
            JSON.readTree(r.body()).get("usage").get("energy").get("energy_uj").asLong(-1);
      }
      // Over every backend's output cap: the steward's router admits none (a refusal, 422).
      HttpResponse<String> refused = post(http, base, chat("small", "x", 1_000_000_000));
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);

      Path root = tmp.resolve("root.hex");
      assertThat(
              mesh(
                      "grant",
                      "issue",
                      "--issuer-key",
                      tmp.resolve("caller.key").toString(),
                      "--subject",
                      steward,
                      "--budget-uj",
                      "2000000",
                      "--expires",
                      "PT1H",
                      "--out",
                      root.toString())
                  .code())
          .isZero();
      Path body = tmp.resolve("body.json");
      Files.writeString(
          body,
          """
          {"model": "large", "max_tokens": 4,
           "messages": [{"role": "user", "content": "granted"}],
           "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "500000"}}""");
      Path granted = tmp.resolve("granted.json");
      MeshCommandTest.Run p =
          mesh(
              "grant",
              "present",
              "--caller-key",
              tmp.resolve("caller.key").toString(),
              "--chain",
              root.toString(),
              "--body",
              body.toString(),
              "--out",
              tmp.resolve("p.hex").toString(),
              "--out-body",
              granted.toString());
      assertThat(p.code()).as(p.err()).isZero();
      HttpResponse<String> g = post(http, base, Files.readString(granted));
      assertThat(g.statusCode()).as(g.body()).isEqualTo(200);
      JsonNode energyOfGranted = JSON.readTree(g.body()).get("usage").get("energy");
      spentUj = energyOfGranted.get("energy_uj").asLong(-1);
      assertThat(spentUj).as(energyOfGranted.toString()).isPositive();

      // A request's timer is recorded once its answer is written, which can be after the client
      // has read it: scrape until the last of the three 200s is counted (the assertions below
      // then check every figure of that scrape).
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        HttpResponse<String> m =
            http.send(
                HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(m.statusCode()).isEqualTo(200);
        assertThat(m.headers().firstValue("Content-Type"))
            .hasValue("text/plain; version=0.0.4; charset=utf-8");
        text = m.body();
        if (postsAnswered200(text) >= 3 || System.nanoTime() > deadline) {
          break;
        }
        Thread.sleep(20);
      }
    }
    assertThat(serve.run().code()).as(serve.run().err()).isZero();

    Map<String, Family> f = PrometheusText.parse(text);
    // Serves by backend, provenance and outcome.
    Family serves = family(f, "mesh_serves_total", "counter", text);
    assertThat(labels(serves)).containsExactlyInAnyOrder("backend", "provenance", "outcome");
    assertThat(
            serves
                .sample(
                    "mesh_serves_total",
                    Map.of("backend", "small", "provenance", "Estimator", "outcome", "served"))
                .value())
        .isEqualTo(2);
    assertThat(
            serves
                .sample(
                    "mesh_serves_total",
                    Map.of("backend", "large", "provenance", "Estimator", "outcome", "served"))
                .value())
        .isEqualTo(1);
    // Refusals by reason and denial label.
    assertThat(
            family(f, "mesh_serve_refusals_total", "counter", text)
                .sample(
                    "mesh_serve_refusals_total",
                    Map.of("reason", "no_admissible_backend", "denial_label", "none"))
                .value())
        .isEqualTo(1);
    // Energy per serve: a histogram in microjoules.
    Family energy = family(f, "mesh_serve_energy_microjoules", "histogram", text);
    Map<String, String> small = Map.of("backend", "small", "provenance", "Estimator");
    assertThat(energy.sample("mesh_serve_energy_microjoules_count", small).value()).isEqualTo(2);
    assertThat(energy.sample("mesh_serve_energy_microjoules_sum", small).value())
        .isEqualTo((double) tokensEnergyOfSmall);
    // µJ per accepted token, by backend.
    Family perToken = family(f, "mesh_serve_energy_per_token_microjoules", "summary", text);
    assertThat(
            perToken
                .sample("mesh_serve_energy_per_token_microjoules_count", Map.of("backend", "small"))
                .value())
        .isEqualTo(2);
    // Grant spend and remaining budget, aggregated over grants.
    assertThat(
            family(f, "mesh_grant_spend_microjoules_total", "counter", text)
                .sample("mesh_grant_spend_microjoules_total", Map.of())
                .value())
        .isEqualTo((double) spentUj);
    assertThat(
            family(f, "mesh_grant_budget_remaining_microjoules", "gauge", text)
                .sample("mesh_grant_budget_remaining_microjoules", Map.of())
                .value())
        .isEqualTo(2_000_000.0 - spentUj);
    // Journal latency, in seconds.
    for (String timer : new String[] {"mesh_journal_append_seconds", "mesh_journal_sync_seconds"}) {
      assertThat(family(f, timer, "summary", text).sample(timer + "_count", Map.of()).value())
          .as(timer)
          .isPositive();
    }
    // State: the chain head, the journal (a locked file), grants honoured.
    assertThat(gauge(f, "mesh_chain_head_sequence", text)).isEqualTo(3);
    assertThat(gauge(f, "mesh_journal_writable", text)).isEqualTo(1);
    assertThat(gauge(f, "mesh_journal_locked", text)).isEqualTo(1);
    assertThat(gauge(f, "mesh_grants_honoured", text)).isEqualTo(1);
    // One observation per serve, and per phase, as timers with the GenAI operation.
    Family serveSeconds = family(f, "mesh_serve_seconds", "summary", text);
    assertThat(labels(serveSeconds))
        .contains("gen_ai_operation_name", "gen_ai_response_model", "mesh_outcome", "error");
    Family phases = family(f, "mesh_serve_phase_seconds", "summary", text);
    assertThat(
            phases.samples().stream()
                .map(s -> s.labels().get("mesh_phase"))
                .collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("route", "authorise", "meter", "seal");
    // Timers only: no long-task timer tracks each open observation (ServeCommand says why).
    assertThat(f.keySet()).noneMatch(name -> name.contains("_active"));
    // Each /v1 request is an observation too (the parent of its serves' observations).
    Family requests = family(f, "mesh_http_request_seconds", "summary", text);
    assertThat(
            requests
                .sample(
                    "mesh_http_request_seconds_count",
                    Map.of(
                        "http_request_method", "POST",
                        "http_response_status_code", "200",
                        "error", "none"))
                .value())
        .isEqualTo(3);
    // Bounded cardinality: no id of any kind is a label.
    for (Family each : f.values()) {
      assertThat(labels(each))
          .as(each.name())
          .doesNotContain("grant_id", "request_id", "receipt_id");
    }
  }

  @Test
  void noMetrics_servesNoMetricsEndpoint_butHealthAndReadiness() throws Exception {
    InProcessServe serve =
        InProcessServe.start(
            tmp.resolve("port"),
            InProcessServe.withoutMiniLm(
                tmp, "--port", "0", "--meter", "estimator", "--no-metrics"));
    try (serve) {
      URI base = serve.base();
      HttpClient http = HttpClient.newHttpClient();
      assertThat(post(http, base, chat("reference", "hi", 4)).statusCode()).isEqualTo(200);
      for (String path : new String[] {"/metrics", "/healthz", "/readyz"}) {
        int status =
            http.send(
                    HttpRequest.newBuilder(base.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode();
        assertThat(status).as(path).isEqualTo(path.equals("/metrics") ? 404 : 200);
      }
    }
    assertThat(serve.run().code()).as(serve.run().err()).isZero();
  }

  /**
   * Regression (review26b): the binding opens a request's timer before its 501 for a method it does
   * not know, and the method was a tag as the client sent it, so each made-up name added a series
   * kept and scraped for the life of the process. Through a real {@code mesh serve}: twenty made-up
   * methods are one {@code _OTHER} series.
   */
  @Test
  void madeUpMethods_areOneOtherSeries_notASeriesEach() throws Exception {
    InProcessServe serve =
        InProcessServe.start(
            tmp.resolve("port"),
            InProcessServe.withoutMiniLm(tmp, "--port", "0", "--meter", "estimator"));
    String text;
    try (serve) {
      URI base = serve.base();
      HttpClient http = HttpClient.newHttpClient();
      for (int i = 0; i < 20; i++) {
        int status =
            http.send(
                    HttpRequest.newBuilder(base.resolve("/v1/models"))
                        .method("X" + i, HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode();
        assertThat(status).as("X" + i).isEqualTo(501);
      }
      text =
          http.send(
                  HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    }
    Family requests =
        family(PrometheusText.parse(text), "mesh_http_request_seconds", "summary", text);
    Set<String> methods =
        requests.samples().stream()
            .map(s -> s.labels().get("http_request_method"))
            .filter(m -> m != null)
            .collect(Collectors.toSet());
    assertThat(methods).as(text).contains("_OTHER").noneMatch(m -> m.matches("X[0-9]+"));
  }

  @Test
  void serveHelp_listsTheOperatorFlags() {
    MeshCommandTest.Run help = mesh("serve", "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("--no-metrics", "--metrics-grant-ids", "--grace-seconds");
  }

  @Test
  void theParser_refusesWhatTheFormatDoesNot() {
    for (String bad :
        new String[] {
          "x 1\n", // a sample with no TYPE
          "# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n", // a series twice
          "# TYPE x gauge\nx{a=1} 1\n", // an unquoted label value
          "# TYPE x gauge\nx 1", // no final newline
          "# TYPE x gauge\ny 1\n", // another family's sample
          "# TYPE x histogram\nx_bucket{le=\"1\"} 2\nx_bucket{le=\"+Inf\"} 1\nx_count 1\n",
          "# TYPE x gauge\nx one\n",
          "# TYPE 1x gauge\n",
        }) {
      assertThatThrownBy(() -> PrometheusText.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(
            PrometheusText.parse("# HELP x a \\\\ b\n# TYPE x gauge\nx{a=\"q\\\"\"} +Inf\n")
                .get("x")
                .sample("x", Map.of("a", "q\""))
                .value())
        .isInfinite();
  }

  /** The count of POST requests answered 200 in a scrape, 0 before the first is recorded. */
  private static double postsAnswered200(String text) {
    Family requests = PrometheusText.parse(text).get("mesh_http_request_seconds");
    if (requests == null) {
      return 0;
    }
    return requests.samples().stream()
        .filter(
            s ->
                s.name().equals("mesh_http_request_seconds_count")
                    && "POST".equals(s.labels().get("http_request_method"))
                    && "200".equals(s.labels().get("http_response_status_code")))
        .mapToDouble(s -> s.value())
        .sum();
  }

  private static double gauge(Map<String, Family> f, String name, String text) {
    return family(f, name, "gauge", text).sample(name, Map.of()).value();
  }

  private static Family family(Map<String, Family> f, String name, String type, String text) {
    Family found = f.get(name);
    assertThat(found).as("family %s in\n%s", name, text).isNotNull();
    assertThat(found.type()).as(name).isEqualTo(type);
    return found;
  }

  private static Set<String> labels(Family f) {
    return f.samples().stream()
        .flatMap(s -> s.labels().keySet().stream())
        .filter(l -> !l.equals("le") && !l.equals("quantile"))
        .collect(Collectors.toSet());
  }

  private String key(String name) {
    MeshCommandTest.Run r = mesh("key", "generate", "--out", tmp.resolve(name).toString());
    assertThat(r.code()).as(r.err()).isZero();
    return r.out().strip();
  }

  private static String chat(String model, String prompt, long maxTokens) {
    return """
        {"model": "%s", "max_tokens": %d, "messages": [{"role": "user", "content": "%s"}]}"""
        .formatted(model, maxTokens, prompt);
  }

  private static HttpResponse<String> post(HttpClient http, URI base, String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
