package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.steward.Steward;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A journal that holds nothing for the steward named is refused, never reported as "0 records form
 * one chain" with exit 0: an operator who mistyped the key, or named an empty file, would read that
 * as their journal verified.
 */
class JournalVerifyNothingJournalledTest {
  @TempDir Path tmp;

  @Test
  @Timeout(120)
  void verify_aDatabaseWithNoJournalForTheKey_refusesNamingTheKey() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase());
    SigningKey steward = SigningKey.generate();
    String did = Jcp.identity(steward).toString();
    try (Steward s =
        ReferenceSteward.builder(steward, PostgresJournal.open(PostgresLocation.parse(url), did))
            .build()) {
      ServeRequest req = ReferenceSteward.request("one serve");
      s.serve(req, ReferenceSteward.payload(req));
    }
    Path right = tmp.resolve("steward.key");
    KeyFile.write(right, steward, false);
    Path typo = tmp.resolve("other.key");
    String other = mesh("key", "generate", "--out", typo.toString()).out().strip();

    Run ok = mesh("journal", "verify", url, "--key", right.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("form one chain");

    Run wrong = mesh("journal", "verify", url, "--key", typo.toString());
    assertThat(wrong.code()).as(wrong.out()).isEqualTo(1);
    assertThat(wrong.out()).isEmpty();
    assertThat(wrong.err().strip().lines()).hasSize(1);
    assertThat(wrong.err())
        .startsWith("mesh journal verify: ")
        .contains("holds no journal for " + other)
        .contains("nothing is journalled for that steward")
        .contains("one journal, of " + did);
    // The same for every command that reads it; export leaves no file behind.
    assertThat(mesh("journal", "inspect", url, "--steward", other).err())
        .contains("holds no journal for " + other);
    Path exported = tmp.resolve("exported.journal");
    Run export = mesh("journal", "export", url, "--steward", other, "--out", exported.toString());
    assertThat(export.code()).isEqualTo(1);
    assertThat(exported).doesNotExist();
  }

  @Test
  void verify_anEmptyJournalFile_refuses_andAMissingOneToo() throws Exception {
    Path empty = tmp.resolve("empty.journal");
    Files.writeString(empty, "");
    Run r = mesh("journal", "verify", empty.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh journal verify: journal " + empty + " holds no records; nothing to verify");
    Run missing = mesh("journal", "verify", tmp.resolve("missing.journal").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("no journal at");
    assertThat(empty).hasContent("");
  }

  /**
   * Regression: inspect and export passed an empty journal file with exit 0 (export writing a
   * journal of no records) where verify refuses it; a database with nothing journalled for the
   * steward was already refused by all three. They now refuse it with verify's reason, and export
   * leaves nothing at --out. Found by a tampering sweep.
   */
  @Test
  void inspectAndExport_anEmptyJournalFile_refuseAsVerifyDoes() throws Exception {
    Path empty = tmp.resolve("empty.journal");
    Files.writeString(empty, "");
    Run inspect = mesh("journal", "inspect", empty.toString());
    assertThat(inspect.code()).isEqualTo(1);
    assertThat(inspect.out()).isEmpty();
    assertThat(inspect.err().strip())
        .isEqualTo(
            "mesh journal inspect: journal " + empty + " holds no records; nothing to inspect");
    Path exported = tmp.resolve("exported.journal");
    Run export = mesh("journal", "export", empty.toString(), "--out", exported.toString());
    assertThat(export.code()).isEqualTo(1);
    assertThat(export.out()).isEmpty();
    assertThat(export.err().strip())
        .isEqualTo(
            "mesh journal export: journal " + empty + " holds no records; nothing to export");
    assertThat(exported).doesNotExist();
    try (var left = Files.list(tmp)) {
      assertThat(left).containsExactlyInAnyOrder(empty);
    }
    // Only a line cut short is no record either, and says so.
    Path torn = tmp.resolve("torn.journal");
    Files.writeString(torn, "{\"seq\":0");
    Run t = mesh("journal", "export", torn.toString(), "--out", exported.toString());
    assertThat(t.code()).isEqualTo(1);
    assertThat(t.err())
        .contains("holds no records (only a final line of 8 bytes, cut short); nothing to export");
    assertThat(exported).doesNotExist();
    assertThat(empty).hasContent("");
  }

  /**
   * Regression: a journal replaced by a folder or by a symbolic link loop was reported as "no
   * journal at FILE", as if it were missing, by verify, inspect and resume-grants; they now say
   * what is there instead, as {@code mesh serve} does. Found by a tampering sweep.
   */
  @Test
  void aJournalReplacedByAFolderOrALinkLoop_isReportedAsWhatIsThere() throws Exception {
    Path folder = tmp.resolve("folder.journal");
    Files.createDirectory(folder);
    Path loop = tmp.resolve("loop.journal");
    Files.createSymbolicLink(loop, loop);
    for (String command : new String[] {"verify", "inspect"}) {
      Run f = mesh("journal", command, folder.toString());
      assertThat(f.code()).isEqualTo(1);
      assertThat(f.err()).contains("no journal at " + folder + ": it is a folder");
      Run l = mesh("journal", command, loop.toString());
      assertThat(l.code()).isEqualTo(1);
      assertThat(l.err())
          .contains("no journal at " + loop + ": it is a symbolic link")
          .contains("loop");
    }
    Run missing = mesh("journal", "verify", tmp.resolve("missing.journal").toString());
    assertThat(missing.err().strip())
        .isEqualTo("mesh journal verify: no journal at " + tmp.resolve("missing.journal"));
  }
}
