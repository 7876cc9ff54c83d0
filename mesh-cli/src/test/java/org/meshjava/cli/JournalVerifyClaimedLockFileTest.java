package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * {@code mesh journal verify} and {@code export}, run in a process that holds a snapshot folder's
 * claim, pointed at another name (a hard link) of that folder's lock file. Regression: they read it
 * through a descriptor of their own, whose closing dropped the claim's lock. They are now refused
 * before opening it, as a steward's opening is, and the claim still names its lock file.
 */
class JournalVerifyClaimedLockFileTest {
  @TempDir Path dir;

  @Test
  void verifyAndExport_ofAHardLinkOfAHeldLockFile_areRefused_beforeOpeningIt() throws Exception {
    Path snaps = dir.resolve("snaps");
    Path journal = dir.resolve("j.log");
    try (SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      Files.createLink(journal, snaps.resolve(SnapshotFolderClaim.LOCK_FILE));
      String out = dir.resolve("out.jsonl").toString();
      for (String[] command :
          new String[][] {
            {"journal", "verify", journal.toString()},
            {"journal", "export", journal.toString(), "--out", out}
          }) {
        Run r = mesh(command);
        assertThat(r.code()).as(command[1] + ": " + r.err()).isNotZero();
        assertThat(r.err())
            .as(command[1])
            .contains(
                "is another name (a hard link) of a snapshot folder's lock file that this process"
                    + " holds");
      }
      assertThat(claim.intact()).isTrue();
    }
  }
}
