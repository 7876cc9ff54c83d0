package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.steward.Steward;
import org.meshjava.testpg.PostgresTestServer;

/**
 * {@code mesh journal adopt}: a journal whose rows were copied into another database, refused there
 * until adopted, opens there once adopted (SPEC.md 60.7, "Copies").
 */
class JournalAdoptTest {
  @TempDir Path tmp;

  @Test
  @Timeout(120)
  void adopt_aCopyInAnotherDatabase_letsItsStewardOpenIt() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String original = server.newDatabase();
    SigningKey key = SigningKey.generate();
    String did = Jcp.identity(key).toString();
    PostgresLocation there = PostgresLocation.parse(server.url(original));
    try (Steward s = ReferenceSteward.builder(key, PostgresJournal.open(there, did)).build()) {
      ServeRequest req = ReferenceSteward.request("one serve");
      s.serve(req, ReferenceSteward.payload(req));
    }
    String copy = server.newDatabase();
    try (Connection c = server.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("DROP DATABASE " + copy);
      st.execute("CREATE DATABASE " + copy + " TEMPLATE " + original);
    }
    String url = server.url(copy);
    PostgresLocation here = PostgresLocation.parse(url);
    assertThatThrownBy(() -> PostgresJournal.open(here, did))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.MISPLACED));

    Run adopt = mesh("journal", "adopt", url);
    assertThat(adopt.code()).as(adopt.err()).isZero();
    assertThat(adopt.out())
        .contains("journal " + did + " adopted at epoch 2")
        .contains("its owner row now names this database");
    PostgresJournal.open(here, did).close();

    Path file = tmp.resolve("steward.journal");
    Files.writeString(file, "");
    Run refused = mesh("journal", "adopt", file.toString());
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).contains("only a journal in a database is adopted");
  }
}
