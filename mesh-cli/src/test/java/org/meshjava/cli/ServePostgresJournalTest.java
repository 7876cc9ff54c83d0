package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.testpg.PostgresTestServer;

/** {@code mesh serve} and {@code mesh journal} refusing what they cannot do with a database. */
class ServePostgresJournalTest {
  @TempDir Path tmp;

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void serve_onADatabaseJournal_needsAKey_aWholeUrl_andTheJournalFree() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase());
    // One reference backend: the embedded defaults would load a model for nothing.
    Path config = tmp.resolve("mesh.json");
    java.nio.file.Files.writeString(
        config,
        "{\"backends\": [{\"type\": \"reference\", \"name\": \"small\", \"fidelity\": \"F1\","
            + " \"uj_per_token\": 40}]}");

    Run noKey = mesh("serve", "--config", config.toString(), "--journal", url, "--port", "0");
    assertThat(noKey.code()).isEqualTo(1);
    assertThat(noKey.err()).contains("mesh serve: --journal postgresql://").contains("pass --key");

    Path key = tmp.resolve("steward.key");
    String did = mesh("key", "generate", "--out", key.toString()).out().strip();
    Run badUrl =
        mesh(
            "serve",
            "--config",
            config.toString(),
            "--key",
            key.toString(),
            "--journal",
            "postgresql://127.0.0.1");
    assertThat(badUrl.code()).isEqualTo(1);
    assertThat(badUrl.err()).contains("names no database");

    // Another steward holds this identity's journal: the second is refused at start.
    try (PostgresJournal held = PostgresJournal.open(PostgresLocation.parse(url), did)) {
      Run locked =
          mesh(
              "serve",
              "--config",
              config.toString(),
              "--key",
              key.toString(),
              "--journal",
              url,
              "--port",
              "0",
              "--fresh-chain");
      assertThat(locked.code()).isEqualTo(1);
      assertThat(locked.err()).contains("held by another steward");
      assertThat(locked.err().strip().lines()).hasSize(1);
      // The same through the configuration's "journal", a URL kept as it is (not a file name).
      Path keyed = tmp.resolve("keyed.json");
      java.nio.file.Files.writeString(
          keyed,
          "{\"key_file\": \"steward.key\", \"journal\": \""
              + url
              + "\", \"port\": 0, \"backends\": [{\"type\": \"reference\", \"name\":"
              + " \"small\", \"fidelity\": \"F1\", \"uj_per_token\": 40}]}");
      Run fromConfig = mesh("serve", "--config", keyed.toString(), "--fresh-chain");
      assertThat(fromConfig.code()).isEqualTo(1);
      assertThat(fromConfig.err()).contains("held by another steward").contains(url);
    }

    Run none = mesh("journal", "verify", server.url(server.newDatabase()));
    assertThat(none.code()).isEqualTo(1);
    assertThat(none.err()).contains("holds no journal");
  }
}
