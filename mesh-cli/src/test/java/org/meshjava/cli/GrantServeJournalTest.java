package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * The grant tools, {@code mesh serve} and {@code mesh journal} end to end, in process: keys and
 * grants written to files, a steward served over HTTP from a config file, a granted body posted,
 * and its journal inspected and verified.
 */
class GrantServeJournalTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private String key(String name) throws Exception {
    Run r = mesh("key", "generate", "--out", tmp.resolve(name).toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().strip()).startsWith("did:key:z6Mk");
    return r.out().strip();
  }

  @Test
  void key_generate_writesAnOwnerOnlySeedAndRefusesToOverwrite() throws Exception {
    String did = key("a.key");
    Path file = tmp.resolve("a.key");
    assertThat(Files.readString(file)).matches("[0-9a-f]{64}\n");
    if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
    }
    assertThat(mesh("key", "show", "--key", file.toString()).out().strip()).isEqualTo(did);
    Run again = mesh("key", "generate", "--out", file.toString());
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).startsWith("mesh key generate: ").contains("--force");
    assertThat(again.err().strip().lines()).hasSize(1);
  }

  @Test
  void grant_tools_issueDelegateShardPresent_andErrorsAreOneLine() throws Exception {
    key("caller.key");
    String holder = key("holder.key");
    String s1 = key("s1.key");
    String s2 = key("s2.key");
    Path root = tmp.resolve("root.hex");
    assertThat(
            mesh(
                    "grant",
                    "issue",
                    "--issuer-key",
                    tmp.resolve("caller.key").toString(),
                    "--subject",
                    holder,
                    "--budget-uj",
                    "1000000",
                    "--expires",
                    "PT1H",
                    "--max-cost-uj",
                    "500000",
                    "--out",
                    root.toString())
                .code())
        .isZero();
    Path child = tmp.resolve("child.hex");
    Run d =
        mesh(
            "grant",
            "delegate",
            "--holder-key",
            tmp.resolve("holder.key").toString(),
            "--chain",
            root.toString(),
            "--subject",
            s1,
            "--budget-uj",
            "400000",
            "--out",
            child.toString());
    assertThat(d.code()).as(d.err()).isZero();
    assertThat(d.out()).contains("(2 links)");
    Run sh =
        mesh(
            "grant",
            "shard",
            "--holder-key",
            tmp.resolve("holder.key").toString(),
            "--chain",
            root.toString(),
            "--share",
            s1 + "=600000",
            "--share",
            s2 + "=400000",
            "--out-dir",
            tmp.resolve("shards").toString());
    assertThat(sh.code()).as(sh.err()).isZero();
    assertThat(tmp.resolve("shards/shard-2.hex")).exists();
    Run over =
        mesh(
            "grant",
            "shard",
            "--holder-key",
            tmp.resolve("holder.key").toString(),
            "--chain",
            root.toString(),
            "--share",
            s1 + "=600001",
            "--share",
            s2 + "=400000",
            "--out-dir",
            tmp.resolve("over").toString());
    assertThat(over.code()).isEqualTo(1);
    assertThat(over.err()).startsWith("mesh grant shard: refused: ").contains("OVER_SUM");
    Run show = mesh("grant", "show", "--chain", child.toString());
    assertThat(show.out()).contains("link 0:").contains("link 1:");
    Run missing =
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            tmp.resolve("nope.key").toString(),
            "--subject",
            holder,
            "--budget-uj",
            "1",
            "--expires",
            "PT1H",
            "--out",
            root.toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err().strip().lines()).hasSize(1);
    assertThat(missing.err()).startsWith("mesh grant issue: cannot read key file");
    Run badDid =
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            tmp.resolve("caller.key").toString(),
            "--subject",
            "did:web:x",
            "--budget-uj",
            "1",
            "--expires",
            "PT1H",
            "--out",
            root.toString());
    assertThat(badDid.code()).isEqualTo(1);
    assertThat(badDid.err()).contains("is not a did:key");
    // present --request: a ServeRequest as JSON.
    Path request = tmp.resolve("request.json");
    Files.writeString(
        request,
        "{\"prompt_hash\":\""
            + "ab".repeat(32)
            + "\",\"prompt_tokens\":3,"
            + "\"max_tokens\":4,\"fidelity_floor\":1,\"joule_ceiling_uj\":1000}");
    Run p =
        mesh(
            "grant",
            "present",
            "--caller-key",
            tmp.resolve("holder.key").toString(),
            "--chain",
            child.toString(),
            "--request",
            request.toString(),
            "--out",
            tmp.resolve("p.hex").toString());
    assertThat(p.code()).as(p.err()).isZero();
    Run notIssuer =
        mesh(
            "grant",
            "present",
            "--caller-key",
            tmp.resolve("caller.key").toString(),
            "--chain",
            child.toString(),
            "--request",
            request.toString(),
            "--out",
            tmp.resolve("q.hex").toString());
    assertThat(notIssuer.code()).isEqualTo(1);
    assertThat(notIssuer.err()).contains("WRONG_KEY");
  }

  @Test
  void serve_fromAConfigFile_servesAGrantedBody_andTheJournalShowsItsSpend() throws Exception {
    String steward = key("steward.key");
    key("caller.key");
    Path journal = tmp.resolve("steward.journal");
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "key_file": "steward.key", "journal": "steward.journal",
         "meter": "estimator", "default_joule_ceiling_uj": 500000, "max_body_bytes": 65536,
         "max_concurrent_serves": 4,
         "backends": [
           {"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40, "work_per_token": 1},
           {"type": "reference", "name": "large", "fidelity": "F4", "uj_per_token": 900, "recipe": "large-ref"}
         ]}""");
    InProcessServe serve =
        InProcessServe.start(tmp.resolve("port"), "--config", config.toString(), "--fresh-chain");
    try (serve) {
      URI base = serve.base();
      HttpClient http = HttpClient.newHttpClient();
      JsonNode who =
          JSON.readTree(
              http.send(
                      HttpRequest.newBuilder(base.resolve("/v1/mesh/steward")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      assertThat(who.get("did").asText()).isEqualTo(steward);

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
          {"model": "small", "max_tokens": 8,
           "messages": [{"role": "user", "content": "Hello through the CLI."}],
           "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}""");
      Path granted = tmp.resolve("granted.json");
      Run p =
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
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(Files.readString(granted)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode energy = JSON.readTree(r.body()).get("usage").get("energy");
      assertThat(energy.get("receipt").get("grant_id").asText()).isNotBlank();
      Files.writeString(tmp.resolve("envelopes.hex"), energy.get("envelope_hex").asText() + "\n");
    }
    assertThat(serve.run().code()).as(serve.run().err()).isZero();
    assertThat(serve.run().out()).contains("listening on http://127.0.0.1:").contains("stopped");

    Run v = mesh("verify", "--from-genesis", tmp.resolve("envelopes.hex").toString());
    assertThat(v.code()).as(v.err()).isZero();

    Run inspect = mesh("journal", "inspect", journal.toString());
    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out())
        .contains("#0 Chain ")
        .contains("#1 Authorised request")
        .contains("#2 Debited authorisation #1")
        .contains("#3 Sealed receipt 0")
        .contains("spend per grant (steward " + steward + ")")
        .contains("unresolved serves: 0");
    assertThat(inspect.out()).containsPattern("spent [1-9][0-9]* uJ of 2000000");

    Run verify = mesh("journal", "verify", "--progress-every", "1", journal.toString());
    assertThat(verify.code()).as(verify.err()).isZero();
    // Four decision records and the transparency log's closing checkpoint (SPEC.md §65).
    assertThat(verify.out()).contains("5 records form one chain and replay");
    assertThat(verify.err()).contains("checked 1 record…").contains("checked 5 records");

    // Edit the debit: the chain no longer forms at the next record.
    List<String> lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
    lines.set(2, lines.get(2).replaceFirst("\"debited_uj\":(\\d)", "\"debited_uj\":9$1"));
    Files.write(journal, lines, StandardCharsets.UTF_8);
    Run bad = mesh("journal", "verify", journal.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).startsWith("mesh journal verify: ").contains("journal record 3");
  }

  @Test
  void serve_refusesAConfigWithAnUnknownKey_listingTheKnownOnesInOrder() throws Exception {
    assertThat(refusedConfig("{\"prot\": 8080}"))
        .contains("unknown key 'prot'")
        .contains("known: [backends, body_deadline_s, default_decision_engine,");
  }

  @Test
  void serve_refusesAConfigReadableTwoWays() throws Exception {
    // Were either read last-wins or first-wins, port -1 would be refused without naming the cause
    // (and a valid pair would start a server, which this test must never do).
    assertThat(refusedConfig("{\"port\": 8080, \"port\": -1}")).contains("Duplicate field 'port'");
    assertThat(refusedConfig("{\"port\": -1} {\"port\": 8081}")).contains("is not JSON");
  }

  /** Runs {@code mesh serve} on a configuration it must refuse; returns its error line. */
  private String refusedConfig(String json) throws Exception {
    Path config = Files.writeString(tmp.resolve("mesh.json"), json);
    Run r = mesh("serve", "--config", config.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("mesh serve: ");
    return r.err();
  }

  @Test
  void grantPresent_readsABodyAsTheServerDoes_refusingADuplicateKey() throws Exception {
    Path key = tmp.resolve("caller.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Path chain = tmp.resolve("root.hex");
    assertThat(
            mesh(
                    "grant",
                    "issue",
                    "--issuer-key",
                    key.toString(),
                    "--subject",
                    org.meshjava.jcp.Jcp.identity(org.meshjava.jcp.Jcp.newKey()).toString(),
                    "--budget-uj",
                    "1000",
                    "--expires",
                    "PT1H",
                    "--out",
                    chain.toString())
                .code())
        .isZero();
    Path body = tmp.resolve("body.json");
    // Read last-wins, this body would be signed for 8 tokens; the server refuses it outright.
    Files.writeString(
        body,
        "{\"max_tokens\": 4, \"max_tokens\": 8,"
            + " \"messages\": [{\"role\": \"user\", \"content\": \"x\"}],"
            + " \"metadata\": {\"joule_ceiling_uj\": \"100\"}}");
    Run r =
        mesh(
            "grant",
            "present",
            "--caller-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--body",
            body.toString(),
            "--out",
            tmp.resolve("p.hex").toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains(body.toString()).contains("Duplicate field 'max_tokens'");
    assertThat(tmp.resolve("p.hex")).doesNotExist();
  }

  @Test
  void journalVerify_ofAMissingFile_isOneLine() {
    Run r = mesh("journal", "verify", tmp.resolve("none").toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo("mesh journal verify: no journal at " + tmp.resolve("none"));
  }
}
