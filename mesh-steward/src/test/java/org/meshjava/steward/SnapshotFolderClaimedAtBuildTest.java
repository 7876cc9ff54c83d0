package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * Regression: a library user's steward over a {@link FileSnapshotStore} took no claim on its folder
 * unless the user called {@link FileSnapshotStore#claim()}, so two stewards on two journals given
 * one folder both started and deleted each other's snapshots (SPEC.md §60.8, "One steward per
 * folder"). The builder now claims it, lets it go at close and on a failed build, and leaves a
 * claim its caller took alone.
 */
class SnapshotFolderClaimedAtBuildTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path folder() {
    return dir.resolve("shared.snapshots");
  }

  Steward.Builder steward(String journal) throws Exception {
    return over(new FileSnapshotStore(folder()), journal);
  }

  /** A steward's builder over {@code journal} and this one {@code store} object. */
  Steward.Builder over(FileSnapshotStore store, String journal) throws Exception {
    return f.steward(FileJournal.open(dir.resolve(journal))).snapshots(store).snapshotEvery(0);
  }

  @Test
  void aSecondStewardOnOneSnapshotFolder_isRefusedNamingIt_andACloseLetsItGo() throws Exception {
    Steward first = steward("a.journal").build();
    try {
      assertThat(folder().resolve(SnapshotFolderClaim.LOCK_FILE)).exists();
      assertThatThrownBy(() -> steward("b.journal").build())
          .isInstanceOfSatisfying(
              StewardStartException.class,
              e -> assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.IN_USE))
          .hasMessageContaining("snapshot folder " + folder() + " is in use by another steward")
          .hasMessageContaining("give each steward a snapshot folder of its own");
      // The refused build let its journal go: a steward over it starts once the folder is free.
      ServeRequest req = GrantFixture.request("first", 3, 10_000);
      first.serve(req, GrantFixture.payload(req));
    } finally {
      first.close(); // its last snapshot is saved under the claim, then the claim is let go
    }
    assertThat(folder().resolve(SnapshotFolderClaim.LOCK_FILE)).doesNotExist();
    try (var snapshots = Files.list(folder())) {
      assertThat(snapshots).isNotEmpty();
    }
    try (Steward again = steward("a.journal").build()) {
      assertThat(again.identity()).isEqualTo(first.identity());
    }
  }

  @Test
  void aBuildThatFailsAfterClaimingTheFolder_letsItGo() throws Exception {
    try (Steward a = steward("a.journal").build()) {
      ServeRequest req = GrantFixture.request("covered", 3, 10_000);
      a.serve(req, GrantFixture.payload(req));
    } // a snapshot of a.journal's records is now the folder's latest
    // The folder records a.journal as its snapshots' own: b's build is refused by that, naming it,
    // before it takes the folder's lock.
    assertThatThrownBy(() -> steward("b.journal").build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.IN_USE);
              assertThat(e.getMessage()).contains("holds the snapshots of journal");
            });
    // Without that record (a folder a version before it wrote), b's build claims the folder, and
    // over its empty journal the latest snapshot covers more than it holds: refused.
    Files.delete(folder().resolve(SnapshotFolderClaim.JOURNAL_FILE));
    assertThatThrownBy(() -> steward("b.journal").build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e ->
                assertThat(e.snapshotRefusal())
                    .contains(SnapshotException.Reason.AHEAD_OF_JOURNAL));
    assertThat(folder().resolve(SnapshotFolderClaim.LOCK_FILE)).doesNotExist();
    try (Steward a = steward("a.journal").build()) {
      assertThat(folder().resolve(SnapshotFolderClaim.LOCK_FILE)).exists();
    }
  }

  @Test
  void aCallerWhoClaimedTheFolderItself_buildsOverIt_andKeepsItsClaim() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(folder());
    try (SnapshotFolderClaim mine = store.claim()) {
      try (Steward s = over(store, "a.journal").build()) {
        assertThat(mine.intact()).isTrue();
      }
      // Its close saved a last snapshot under the caller's claim and left that claim held.
      assertThat(mine.intact()).isTrue();
      assertThatThrownBy(() -> steward("b.journal").build())
          .isInstanceOf(StewardStartException.class)
          .hasMessageContaining("is in use by another steward");
    }
  }

  /**
   * Regression: under a claim its caller took, the store answered every steward built over it "the
   * caller's claim stands" and took nothing, so two stewards on two journals and this one store
   * both started, each deleting the other's snapshots. The second is now refused while the first is
   * open, its journal let go; the first's close, or a failed build, frees the store again.
   */
  @Test
  void twoStewardsOnOneStoreUnderItsCallersClaim_theSecondIsRefusedUntilTheFirstCloses()
      throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(folder());
    try (SnapshotFolderClaim mine = store.claim()) {
      Steward first = over(store, "a.journal").build();
      try {
        assertThatThrownBy(() -> over(store, "b.journal").build())
            .isInstanceOfSatisfying(
                StewardStartException.class,
                e -> assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.IN_USE))
            .hasMessageContaining("snapshot folder " + folder() + " is in use by")
            .hasMessageContaining("close that steward first");
      } finally {
        first.close();
      }
      assertThat(mine.intact()).isTrue();
      // The refused build let b.journal go, and the first's close the store.
      try (Steward second = over(store, "b.journal").build()) {
        assertThat(mine.intact()).isTrue();
      }
      assertThat(mine.intact()).isTrue();
    }
  }

  /** Under its caller's claim, a build that fails after holding the store lets the store go. */
  @Test
  void aBuildThatFailsUnderItsCallersClaim_letsTheStoreGo() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(folder());
    try (SnapshotFolderClaim mine = store.claim()) {
      try (Steward a = over(store, "a.journal").build()) {
        ServeRequest req = GrantFixture.request("covered", 3, 10_000);
        a.serve(req, GrantFixture.payload(req));
      }
      // Over another, empty journal the latest snapshot covers more than it holds: refused.
      assertThatThrownBy(() -> over(store, "b.journal").build())
          .isInstanceOfSatisfying(
              StewardStartException.class,
              e ->
                  assertThat(e.snapshotRefusal())
                      .contains(SnapshotException.Reason.AHEAD_OF_JOURNAL));
      try (Steward again = over(store, "a.journal").build()) {
        assertThat(mine.intact()).isTrue();
      }
    }
  }
}
