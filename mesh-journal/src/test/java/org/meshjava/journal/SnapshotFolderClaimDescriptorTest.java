package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.journal.FileJournalDescriptorTest.assertNoLeak;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.ShortLockRetries;

/**
 * A snapshot folder's claim keeps one descriptor on its lock file while it holds it, and none
 * after: when it closes, when it renews the lock of a lock file removed under it, and when it is
 * refused because another process holds the folder. A steward restarted or refused for months must
 * not run out of descriptors. Counted as {@link FileJournalDescriptorTest} counts them.
 */
// Each refused open waits out the lock's retries (about 31 ms); a pause changes nothing counted.
@ExtendWith(ShortLockRetries.class)
class SnapshotFolderClaimDescriptorTest {
  @TempDir Path tmp;

  @BeforeEach
  void procIsThere() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "no /proc/self/fd on this platform");
  }

  @Test
  void claimingAndClosing_leavesNoDescriptorOpen() throws Exception {
    Path dir = tmp.resolve("snaps");
    assertNoLeak(i -> new FileSnapshotStore(dir).claim().close());
  }

  @Test
  void renewingTheLockOfARemovedLockFile_letsTheOldOneGo() throws Exception {
    Path dir = tmp.resolve("snaps");
    try (SnapshotFolderClaim claim = new FileSnapshotStore(dir).claim()) {
      assertNoLeak(
          i -> {
            Files.delete(claim.lockFile());
            claim.renew();
            assertThat(claim.intact()).isTrue();
          });
    }
  }

  @Test
  void aClaimRefusedBecauseAnotherProcessHoldsTheFolder_leavesNoDescriptorOpen() throws Exception {
    Path dir = tmp.resolve("snaps");
    SnapshotClaimChild.whileClaimedElsewhere(
        dir,
        () ->
            assertNoLeak(
                i ->
                    assertThatThrownBy(() -> new FileSnapshotStore(dir).claim())
                        .isInstanceOfSatisfying(
                            SnapshotException.class,
                            e ->
                                assertThat(e.reason())
                                    .isEqualTo(SnapshotException.Reason.IN_USE))));
  }
}
