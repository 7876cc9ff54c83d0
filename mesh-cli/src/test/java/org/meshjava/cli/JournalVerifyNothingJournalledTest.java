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
 * A database that holds nothing for the steward named is refused, never reported as "0 records form
 * one chain" with exit 0: an operator who mistyped the key would read that as their journal
 * verified. A journal file of no whole record is what a steward's first start leaves, and is
 * reported as holding no records yet.
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
  void verify_anEmptyJournalFile_holdsNoRecordsYet_andAMissingOneIsRefused() throws Exception {
    Path empty = tmp.resolve("empty.journal");
    Files.writeString(empty, "");
    Run r = mesh("journal", "verify", empty.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out().strip())
        .isEqualTo("journal " + empty + ": holds no records yet; nothing to verify");
    Run missing = mesh("journal", "verify", tmp.resolve("missing.journal").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("no journal at");
    assertThat(empty).hasContent("");
  }

  /**
   * Regression: verify, inspect and export exited 1 on a journal file holding no whole record,
   * empty or one line cut short: what a steward killed before its first record leaves, and starts
   * again on as a new journal. They now exit 0 saying it holds no records yet (the cut line named
   * as such), and export writes an empty journal; a database with nothing for the steward named is
   * still refused (above).
   */
  @Test
  void inspectVerifyExport_aJournalFileOfNoWholeRecord_holdNoRecordsYet() throws Exception {
    Path empty = tmp.resolve("empty.journal");
    Files.writeString(empty, "");
    Run inspect = mesh("journal", "inspect", empty.toString());
    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out().strip())
        .isEqualTo("journal " + empty + ": holds no records yet; nothing to inspect");
    Path exported = tmp.resolve("exported.journal");
    Run export = mesh("journal", "export", empty.toString(), "--out", exported.toString());
    assertThat(export.code()).as(export.err()).isZero();
    assertThat(export.out().strip())
        .isEqualTo(
            "journal " + empty + ": holds no records yet; an empty journal written to " + exported);
    assertThat(exported).hasContent("");
    // Only a line cut short is no record either, and is named for what it is.
    Path torn = tmp.resolve("torn.journal");
    Files.writeString(torn, "{\"seq\":0");
    String cut = "; a final line of 8 bytes without a newline is an append cut short and ";
    for (String command : new String[] {"verify", "inspect"}) {
      Run t = mesh("journal", command, torn.toString());
      assertThat(t.code()).as(t.err()).isZero();
      assertThat(t.out().strip())
          .isEqualTo(
              "journal "
                  + torn
                  + ": holds no records yet; nothing to "
                  + command
                  + cut
                  + "will be dropped");
    }
    Path tornCopy = tmp.resolve("torn-copy.journal");
    Run t = mesh("journal", "export", torn.toString(), "--out", tornCopy.toString());
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(t.out())
        .contains("holds no records yet; an empty journal written to " + tornCopy + cut)
        .contains("was not copied");
    assertThat(tornCopy).hasContent("");
    assertThat(torn).hasContent("{\"seq\":0");
    try (var left = Files.list(tmp)) {
      assertThat(left).containsExactlyInAnyOrder(empty, exported, torn, tornCopy);
    }
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
