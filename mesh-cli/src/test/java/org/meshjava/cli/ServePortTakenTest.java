package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * A {@code mesh serve} refused its port fails in one line (exit 1) and lets go of what it opened:
 * in the same JVM, where no process exit drops a lock, the journal and its snapshot folder can be
 * taken again at once.
 */
class ServePortTakenTest {
  @TempDir Path tmp;

  @Test
  void aTakenPort_onAJournalThatWasThere_letsGoOfItsLockAndSnapshotFolder() throws Exception {
    Path key = tmp.resolve("steward.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Path journal = tmp.resolve("steward.journal");
    org.meshjava.journal.FileJournal.open(journal).close();

    Run refused =
        CliErrorsTest.serveOnATakenPort(
            journal, "--key", key.toString(), "--fresh-chain", "--config", oneBackend().toString());
    assertThat(refused.code()).as(refused.err()).isEqualTo(1);
    assertThat(refused.err().strip().lines()).as(refused.err()).hasSize(1);
    assertThat(refused.err()).startsWith("mesh serve: cannot listen on 127.0.0.1:");

    try (org.meshjava.journal.FileJournal again = org.meshjava.journal.FileJournal.open(journal);
        org.meshjava.journal.SnapshotFolderClaim claim =
            org.meshjava.journal.FileSnapshotStore.beside(journal).claim(journal)) {
      assertThat(again.position().count()).isNotNegative();
      assertThat(claim).isNotNull();
    }
  }

  /** A configuration of one reference backend, so no start loads the defaults' MiniLM. */
  private Path oneBackend() throws java.io.IOException {
    return java.nio.file.Files.writeString(
        tmp.resolve("mesh.json"),
        """
        {"backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                       "uj_per_token": 40, "work_per_token": 1}]}""");
  }

  /** The whole round on a journal holding a receipt: three starts, about 10 s on a loaded host. */
  @org.junit.jupiter.api.Tag("slow")
  @Test
  void aTakenPort_onAJournalInUse_failsInOneLine_andLeavesItWholeAndUnlocked() throws Exception {
    Path key = tmp.resolve("steward.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Path journal = tmp.resolve("steward.journal");
    Path config = oneBackend();
    String[] steward = {
      "--config",
      config.toString(),
      "--key",
      key.toString(),
      "--journal",
      journal.toString(),
      "--meter",
      "estimator",
      "--port",
      "0"
    };
    try (InProcessServe first =
        InProcessServe.start(tmp.resolve("port1"), concat(steward, "--fresh-chain"))) {
      assertThat(chat(first).statusCode()).isEqualTo(200);
    }

    Run refused =
        CliErrorsTest.serveOnATakenPort(
            journal, "--key", key.toString(), "--config", config.toString());
    assertThat(refused.code()).as(refused.err()).isEqualTo(1);
    assertThat(refused.err().strip().lines()).as(refused.err()).hasSize(1);
    assertThat(refused.err()).startsWith("mesh serve: cannot listen on 127.0.0.1:");
    assertThat(refused.out()).doesNotContain("listening");

    Run verify = mesh("journal", "verify", journal.toString());
    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("1 receipt");
    try (InProcessServe again = InProcessServe.start(tmp.resolve("port2"), steward)) {
      HttpResponse<String> second = chat(again);
      assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
      // The chain goes on from the receipt before the refused start.
      assertThat(
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(second.body())
                  .at("/usage/energy/receipt/sequence")
                  .asLong(-1))
          .as(second.body())
          .isEqualTo(1);
    }
  }

  private static String[] concat(String[] first, String... more) {
    String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
    System.arraycopy(more, 0, all, first.length, more.length);
    return all;
  }

  private static HttpResponse<String> chat(InProcessServe serve) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(serve.base().resolve("/v1/chat/completions"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    """
                    {"model": "auto", "max_tokens": 4,
                     "messages": [{"role": "user", "content": "hi"}],
                     "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "50000"}}"""))
            .build();
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
  }
}
