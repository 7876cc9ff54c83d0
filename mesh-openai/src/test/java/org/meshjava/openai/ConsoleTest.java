package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.MeshReceipt;

/** The operator console without a browser: off by default, read-only, its assets and its JSON. */
class ConsoleTest {
  private final SigningKey caller = Jcp.newKey();
  private final Fixture f = new Fixture(null, s -> {}, b -> b.console("127.0.0.1", 0));

  @AfterEach
  void close() {
    f.close();
  }

  private URI console(String path) {
    URI page = f.server.consoleUri().orElseThrow();
    return page.resolve(path);
  }

  private Fixture.Answer get(String path) {
    return f.send(HttpRequest.newBuilder(console(path)).GET());
  }

  /** A root grant from {@code caller} to {@code steward}, valid for the next hour. */
  static GrantChain grant(SigningKey caller, DidKey steward, long budgetUj) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(
        caller, steward, budgetUj, now.minusSeconds(60), now.plus(Duration.ofHours(1)));
  }

  /** A chat body with its own joule ceiling, presented on {@code chain} by {@code caller}. */
  static ObjectNode presented(SigningKey caller, GrantChain chain, String prompt) throws Exception {
    ObjectNode body = Fixture.chat(prompt);
    body.putObject("metadata").put("joule_ceiling_uj", "200000").put("fidelity_floor", "F1");
    body.put(
        "jcp_presentation", Jcp.present(caller, chain, GrantedServeRequest.derive(body)).toHex());
    return body;
  }

  private MeshReceipt serve(ObjectNode body) throws Exception {
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return Fixture.verifiedReceipt(a.json().get("usage").get("energy"));
  }

  @Test
  void console_isOffByDefault_andNeverOnTheApiListener() {
    try (Fixture plain = new Fixture()) {
      assertThat(plain.server.consoleUri()).isEmpty();
      plain.get("/console").error(404, "not_found");
      plain.get("/v1/mesh/receipts").error(404, "not_found");
      plain.get("/v1/mesh/status").error(404, "not_found");
    }
    // Enabled, it has its own listener; the API's still does not serve it.
    assertThat(f.server.consoleUri().orElseThrow().getPort()).isNotEqualTo(f.server.port());
    f.get("/console").error(404, "not_found");
    f.get("/v1/mesh/grants").error(404, "not_found");
  }

  @Test
  void consoleListener_servesTheApiNot() {
    get("/v1/models").error(404, "not_found");
    Fixture.Answer post =
        f.send(
            HttpRequest.newBuilder(console("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("hi").toString())));
    post.error(405, "method_not_allowed");
    assertThat(f.steward.head().nextSequence()).isZero();
  }

  @Test
  void console_answersGetOnly_everyOtherMethodIs405() throws Exception {
    for (String path :
        List.of("/console", "/v1/mesh/receipts", "/v1/mesh/grants", "/v1/mesh/status")) {
      for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")) {
        Fixture.Answer a =
            f.send(
                HttpRequest.newBuilder(console(path))
                    .method(method, HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(a.status()).as(method + " " + path).isEqualTo(405);
        if (!method.equals("HEAD")) {
          a.error(405, "method_not_allowed");
        }
      }
    }
    java.net.http.HttpResponse<Void> put =
        f.http.send(
            HttpRequest.newBuilder(console("/v1/mesh/status"))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
    assertThat(put.headers().firstValue("allow")).contains("GET");
  }

  /** Jetty matched a path with {@code ;…} as the path without it, here as on the API's side. */
  @Test
  void console_pathWithASemicolonParameter_is404() {
    for (String path : List.of("/v1/mesh/status;x", "/;x")) {
      assertThat(get(path).error(404, "not_found").get("message").asText()).as(path).contains(path);
    }
  }

  @Test
  void assets_areServedWithTheirTypes_andLockedDownHeaders() throws Exception {
    Fixture.Answer page = get("/console");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.contentType()).isEqualTo("text/html; charset=utf-8");
    assertThat(page.body())
        .contains("<script src=\"/console/console.js\"")
        .contains("id=\"receipts\"")
        .contains("id=\"chart\"");
    assertThat(get("/console/").body()).isEqualTo(page.body());
    Fixture.Answer js = get("/console/console.js");
    assertThat(js.status()).isEqualTo(200);
    assertThat(js.contentType()).startsWith("text/javascript");
    assertThat(js.body()).contains("/v1/mesh/receipts").doesNotContain("innerHTML");
    assertThat(get("/console/console.css").contentType()).startsWith("text/css");
    var r =
        f.http.send(
            HttpRequest.newBuilder(console("/console")).GET().build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
    assertThat(r.headers().firstValue("content-security-policy").orElseThrow())
        .contains("default-src 'none'")
        .contains("script-src 'self'")
        .doesNotContain("unsafe");
    assertThat(r.headers().firstValue("x-content-type-options")).contains("nosniff");
    assertThat(r.headers().firstValue("cache-control")).contains("no-store");
    // No path names a file: anything but the fixed assets is 404, and a dot segment is refused
    // before any path is looked up (SPEC 70).
    get("/console/../pom.xml").error(400, "http_400");
    get("/console/pom.xml").error(404, "not_found");
    get("/console/index.html").error(404, "not_found");
    get("/console/console.js.map").error(404, "not_found");
  }

  @Test
  void receipts_listsWhatWasSealed_newestFirst_andAfterFilters() throws Exception {
    MeshReceipt first = serve(Fixture.chat("one"));
    MeshReceipt second = serve(Fixture.chat("two"));
    JsonNode list = get("/v1/mesh/receipts").json();
    assertThat(list.get("object").asText()).isEqualTo("list");
    assertThat(list.get("capacity").asInt()).isEqualTo(ConsoleFeed.RECEIPTS);
    JsonNode data = list.get("data");
    assertThat(data).hasSize(2);
    JsonNode top = data.get(0);
    assertThat(top.get("sequence").asLong()).isEqualTo(second.sequence());
    assertThat(data.get(1).get("sequence").asLong()).isEqualTo(first.sequence());
    assertThat(top.get("backend").asText()).isEqualTo(second.backend());
    assertThat(top.get("provenance").asText()).isEqualTo("Estimator");
    assertThat(top.get("energy_uj").asLong()).isEqualTo(second.energy().uj());
    assertThat(top.get("uj_per_accepted_token").asLong())
        .isEqualTo(second.ujPerAcceptedToken().getAsLong());
    assertThat(top.get("uj_per_decision").isNull()).isTrue();
    assertThat(top.get("tokens_out").asLong()).isEqualTo(second.counters().tokensOut());
    assertThat(top.get("tokens_accepted").asLong()).isEqualTo(second.counters().tokensAccepted());
    assertThat(top.get("kind").asText()).isEqualTo("generation");
    assertThat(top.get("status").asText()).isEqualTo("ok");
    assertThat(top.get("request_id").asText()).isEqualTo(second.requestId().hex());
    assertThat(top.get("grant_id").isNull()).isTrue();

    JsonNode after = get("/v1/mesh/receipts?after=" + first.sequence()).json().get("data");
    assertThat(after).hasSize(1);
    assertThat(after.get(0).get("sequence").asLong()).isEqualTo(second.sequence());
    assertThat(get("/v1/mesh/receipts?limit=1").json().get("data")).hasSize(1);
  }

  @Test
  void receipts_badParameters_are400WithTheirName() throws IOException {
    assertThat(get("/v1/mesh/receipts?limit=0").error(400, "invalid_field").get("param").asText())
        .isEqualTo("limit");
    get("/v1/mesh/receipts?limit=" + (ConsoleFeed.RECEIPTS + 1)).error(400, "invalid_field");
    get("/v1/mesh/receipts?limit=-1").error(400, "invalid_field");
    get("/v1/mesh/receipts?limit=ten").error(400, "invalid_field");
    get("/v1/mesh/receipts?after=99999999999999999999999").error(400, "invalid_field");
    get("/v1/mesh/receipts?limit=1&limit=2").error(400, "invalid_field");
    get("/v1/mesh/receipts?sort=asc").error(400, "invalid_field");
    assertThat(raw("GET", "/v1/mesh/receipts?limit=%zz", "localhost"))
        .startsWith("HTTP/1.1 400")
        .contains("invalid_field");
  }

  @Test
  void grants_showSpendAgainstBudget_afterAGrantedServe() throws Exception {
    GrantChain chain = grant(caller, f.steward.identity(), 5_000_000);
    assertThat(get("/v1/mesh/grants").json().get("data")).isEmpty();
    MeshReceipt receipt = serve(presented(caller, chain, "Granted."));

    JsonNode grants = get("/v1/mesh/grants").json();
    assertThat(grants.get("capacity").asInt()).isEqualTo(ConsoleFeed.GRANTS);
    JsonNode g = grants.get("data").get(0);
    assertThat(g.get("grant_id").asText()).isEqualTo(chain.leaf().id().hex());
    assertThat(g.get("budget_uj").asLong()).isEqualTo(5_000_000);
    assertThat(g.get("debited_uj").asLong()).isEqualTo(receipt.energy().uj());
    assertThat(g.get("reserved_uj").asLong()).isZero();
    assertThat(g.get("remaining_uj").asLong()).isEqualTo(5_000_000 - receipt.energy().uj());
    assertThat(g.get("links")).hasSize(1);
    JsonNode r = get("/v1/mesh/receipts").json().get("data").get(0);
    assertThat(r.get("grant_id").asText()).isEqualTo(chain.leaf().id().hex());
  }

  @Test
  void grants_aForgedPresentation_neverReachesTheTable() throws Exception {
    GrantChain other = grant(caller, Jcp.identity(Jcp.newKey()), 5_000_000);
    ObjectNode body = presented(caller, other, "Not for this steward.");
    assertThat(f.post("/v1/chat/completions", body).status()).isEqualTo(403);
    assertThat(get("/v1/mesh/grants").json().get("data")).isEmpty();
    assertThat(get("/v1/mesh/receipts").json().get("data")).isEmpty();
  }

  /**
   * Regression: {@code /v1/mesh/status} and {@code /readyz} told the same facts under different
   * names ({@code prev} and {@code head}, {@code describe} and {@code description}, {@code
   * refuses_appends} and {@code problem}, {@code why_not} and {@code refused_because}), and a
   * counter's state in different case.
   */
  @Test
  void status_andReadyz_nameEveryFactTheyShareAlike() throws Exception {
    serve(Fixture.chat("named alike"));
    JsonNode status = get("/v1/mesh/status").json();
    JsonNode ready = f.get("/readyz").json();
    for (String part : List.of("chain", "journal", "grants", "meter")) {
      JsonNode mine = status.get(part);
      JsonNode theirs = ready.get(part);
      theirs
          .fieldNames()
          .forEachRemaining(
              field ->
                  assertThat(mine.get(field))
                      .as("/v1/mesh/status %s.%s, as /readyz has it", part, field)
                      .isEqualTo(theirs.get(field)));
    }
    assertThat(status.get("chain").get("head").asText()).hasSize(64);
    assertThat(status.get("journal").get("description").asText()).isEqualTo("in-memory journal");
  }

  @Test
  void status_reportsChainJournalGrantsMeterAndBackendTotals() throws Exception {
    MeshReceipt receipt = serve(Fixture.chat("status"));
    JsonNode s = get("/v1/mesh/status").json();
    assertThat(s.get("did").asText()).isEqualTo(f.steward.identity().value());
    assertThat(s.get("chain").get("next_sequence").asLong())
        .isEqualTo(f.steward.head().nextSequence());
    assertThat(s.get("chain").get("head").asText())
        .isEqualTo(f.steward.head().prev().orElseThrow().hex());
    assertThat(s.get("journal").get("description").asText()).isEqualTo("in-memory journal");
    assertThat(s.get("journal").get("durable").asBoolean()).isFalse();
    assertThat(s.get("journal").get("unresolved").asInt()).isZero();
    assertThat(s.get("grants").get("honoured").asBoolean()).isTrue();
    assertThat(s.get("grants").get("refused_because").isNull()).isTrue();
    assertThat(s.get("ready").asBoolean()).isTrue();
    assertThat(s.get("journal").get("locked").asBoolean()).isFalse();
    assertThat(s.get("journal").get("refuses_appends").isNull()).isTrue();
    assertThat(s.get("meter").get("name").asText()).isEqualTo(f.steward.meter().name());
    assertThat(s.get("meter").get("estimator_only").asBoolean()).isTrue();
    assertThat(s.get("meter").get("counters")).isEmpty();
    JsonNode backends = s.get("backends");
    assertThat(backends).hasSize(f.steward.backends().size());
    long serves = 0;
    long energy = 0;
    for (JsonNode b : backends) {
      serves += b.get("serves").asLong();
      energy += b.get("energy_uj").asLong();
    }
    assertThat(serves).isEqualTo(1);
    assertThat(energy).isEqualTo(receipt.energy().uj());
  }

  @Test
  void loopbackConsole_refusesAForeignHost_againstDnsRebinding() throws Exception {
    assertThat(raw("GET", "/v1/mesh/status", "evil.example:80")).startsWith("HTTP/1.1 403");
    assertThat(raw("GET", "/v1/mesh/status", "localhost:1")).startsWith("HTTP/1.1 200");
    assertThat(raw("GET", "/v1/mesh/status", "127.0.0.1")).startsWith("HTTP/1.1 200");
    assertThat(raw("GET", "/v1/mesh/status", "[::1]:8080")).startsWith("HTTP/1.1 200");
    assertThat(ConsoleEndpoints.loopbackHost(Optional.of("127.0.0.1.evil.example"))).isFalse();
    assertThat(ConsoleEndpoints.loopbackHost(Optional.empty())).isFalse();
  }

  @Test
  void loopbackConsole_answersLocalhostWrittenAbsolute_andNoOtherDottedName() throws Exception {
    for (String host : List.of("localhost.:8081", "LOCALHOST.")) {
      assertThat(raw("GET", "/v1/mesh/status", host)).as(host).startsWith("HTTP/1.1 200");
    }
    for (String host : List.of("localhost..", "localhost.evil.example", "evil.example.")) {
      assertThat(raw("GET", "/v1/mesh/status", host)).as(host).startsWith("HTTP/1.1 403");
    }
  }

  /**
   * {@code Host} is the client's word. A client on another machine that reaches the loopback
   * listener through a route into loopback (Linux's {@code route_localnet} and a DNAT rule, as
   * kube-proxy sets up; CVE-2020-8558) sent {@code Host: localhost} and was served. This host's own
   * non-loopback address stands in for that client: the kernel routes its connection to 127.0.0.1
   * over loopback, and the listener sees the peer's address as it is.
   */
  @Test
  void loopbackConsole_refusesAPeerWhoseAddressIsNotLoopback_whateverHostItNames()
      throws Exception {
    InetAddress own =
        NetworkInterface.networkInterfaces()
            .filter(n -> !n.getName().startsWith("lo"))
            .flatMap(NetworkInterface::inetAddresses)
            .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
            .findFirst()
            .orElse(null);
    assumeTrue(own != null, "this host has no IPv4 address but loopback");
    String answer = raw("GET", "/v1/mesh/status", "localhost", own);
    assertThat(answer).startsWith("HTTP/1.1 403").contains("host_not_allowed");
    assertThat(answer)
        .contains("this connection came from " + own.getHostAddress())
        .contains("not a loopback address");
    assertThat(raw("GET", "/v1/mesh/status", "localhost")).startsWith("HTTP/1.1 200");
  }

  /** One HTTP/1.1 request with a chosen Host; returns the status line and headers. */
  private String raw(String method, String path, String host) throws IOException {
    return raw(method, path, host, null);
  }

  /** {@link #raw(String, String, String)} from the local address {@code from}, when given. */
  private String raw(String method, String path, String host, InetAddress from) throws IOException {
    URI base = f.server.consoleUri().orElseThrow();
    try (Socket s = new Socket()) {
      if (from != null) {
        s.bind(new InetSocketAddress(from, 0));
      }
      s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          (method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void feed_isBounded_keepingTheNewest() throws Exception {
    ConsoleFeed feed = new ConsoleFeed();
    var result =
        f.steward.serve(
            org.meshjava.core.ServeRequest.generation(
                org.meshjava.core.PromptText.of("x"), 2, org.meshjava.core.Fidelity.F1, 100_000),
            org.meshjava.core.PromptText.of("x"));
    for (int i = 0; i < ConsoleFeed.RECEIPTS + 10; i++) {
      feed.served(i, result, Optional.empty());
    }
    List<ConsoleFeed.Served> all = feed.recent(Integer.MAX_VALUE, Optional.empty());
    assertThat(all).hasSize(ConsoleFeed.RECEIPTS);
    assertThat(all.get(0).atMillis()).isEqualTo(ConsoleFeed.RECEIPTS + 9);
    assertThat(all.get(all.size() - 1).atMillis()).isEqualTo(10);
    assertThat(feed.totals()).singleElement().satisfies(t -> assertThat(t.serves()).isEqualTo(266));
  }

  @Test
  void feed_keepsTheGrantsMostRecentlyServedOn_upToItsBound() throws Exception {
    ConsoleFeed feed = new ConsoleFeed();
    org.meshjava.core.PromptText prompt = org.meshjava.core.PromptText.of("g");
    GrantChain firstChain = null;
    for (int i = 0; i <= ConsoleFeed.GRANTS; i++) {
      // A grant's id is its content: each budget makes another grant.
      GrantChain chain = grant(caller, f.steward.identity(), 1_000_000 + i);
      var request =
          org.meshjava.core.ServeRequest.generation(
              prompt, 2, org.meshjava.core.Fidelity.F1, 100_000);
      var presentation = Jcp.present(caller, chain, request);
      feed.served(i, f.steward.serve(request, prompt, presentation), Optional.of(presentation));
      if (i == 0) {
        firstChain = chain;
      }
    }
    List<GrantChain> grants = feed.grants();
    assertThat(grants).hasSize(ConsoleFeed.GRANTS);
    assertThat(grants).doesNotContain(firstChain); // the least recently served on went first
  }
}
