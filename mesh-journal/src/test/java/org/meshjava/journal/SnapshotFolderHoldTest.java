package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileSnapshotStore#claimForSteward(Journal)}: one steward at a time over a store, whoever
 * claimed its folder; the hold lets go of the claim it took at close, and leaves a claim the
 * store's caller took to that caller.
 */
class SnapshotFolderHoldTest {
  /** A journal with no file: the hold claims the folder for no journal, as a plain claim does. */
  private static final Journal NO_FILE = new InMemoryJournal();

  @TempDir Path dir;

  static void assertInUse(FileSnapshotStore store) {
    assertThatThrownBy(() -> store.claimForSteward(NO_FILE))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE));
  }

  @Test
  void aSecondStewardOverTheSameStore_isRefusedUntilTheFirstCloses() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    SnapshotFolderHold first = store.claimForSteward(NO_FILE);

    assertInUse(store);
    first.close();
    store.claimForSteward(NO_FILE).close();
  }

  @Test
  void theClaimAHoldTook_isLetGoAtClose_soAnotherStoreCanClaimTheFolder() throws Exception {
    Path snaps = dir.resolve("snaps");
    SnapshotFolderHold hold = new FileSnapshotStore(snaps).claimForSteward(NO_FILE);
    FileSnapshotStore other = new FileSnapshotStore(snaps);
    assertThatThrownBy(other::claim)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE));

    hold.close();

    other.claim().close();
  }

  @Test
  void underTheCallersOwnClaim_aHoldTakesNone_andLeavesThatClaimHeldAtClose() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    try (SnapshotFolderClaim own = store.claim()) {
      SnapshotFolderHold hold = store.claimForSteward(NO_FILE);
      assertInUse(store);

      hold.close();

      assertThat(own.intact()).isTrue();
      assertThat(own.held()).isTrue();
      store.claimForSteward(NO_FILE).close(); // the next steward builds under the same claim
      assertThat(own.held()).isTrue();
    }
  }

  @Test
  void closingAHoldTwice_letsGoOnce_andDoesNotReleaseTheNextStewardsHold() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    SnapshotFolderHold first = store.claimForSteward(NO_FILE);
    first.close();
    SnapshotFolderHold second = store.claimForSteward(NO_FILE);

    first.close();

    assertInUse(store);
    second.close();
  }

  @Test
  void afterTheCallersClaimIsClosed_aHoldTakesAClaimOfItsOwn() throws Exception {
    Path snaps = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    store.claim().close();

    try (SnapshotFolderHold hold = store.claimForSteward(NO_FILE)) {
      assertThatThrownBy(() -> new FileSnapshotStore(snaps).claim())
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE));
    }
  }

  @Test
  void aFolderThatCannotBeMade_isAnIoRefusal_namingItAndWhy() throws Exception {
    Path file = dir.resolve("file");
    java.nio.file.Files.writeString(file, "not a folder");
    Path under = file.resolve("snaps");

    assertThatThrownBy(() -> new FileSnapshotStore(under).claimForSteward(NO_FILE))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
              assertThat(e.detail()).startsWith("cannot lock snapshot folder " + under + ": ");
            });
  }
}
