package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot folder that is another journal's by its record or by its name (SPEC.md §60.8, "Whose
 * snapshots a folder holds"): a journal copied with its folder, run while the original exists, is
 * refused saying how to clear the record and when that is safe; a folder an older version wrote
 * (snapshots, no {@value SnapshotFolderClaim#JOURNAL_FILE}) beside another journal is that
 * journal's by name, and a claim for this one is refused rather than left to record it as this
 * one's at its first save.
 */
class SnapshotFolderOfAnotherJournalTest {
  @TempDir Path tmp;

  /** The journal at {@code name}, with a snapshot saved in its own folder under its claim. */
  private Path journalWithASnapshot(String name) throws Exception {
    Path j = Files.writeString(tmp.resolve(name), "");
    FileSnapshotStore store = FileSnapshotStore.beside(j);
    try (SnapshotFolderClaim claim = store.claim(j)) {
      store.save(FileSnapshotStoreTest.at(3));
    }
    return j;
  }

  private static String refusedInUse(FileSnapshotStore store, Path journal) {
    try {
      store.claim(journal).close();
    } catch (SnapshotException e) {
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE);
      return e.detail();
    }
    throw new AssertionError("the claim for " + journal + " was taken");
  }

  @Test
  void aJournalCopiedWithItsFolder_isRefusedWhileTheOriginalExists_saying_howToClearIt()
      throws Exception {
    Path a = journalWithASnapshot("a.journal");
    Path b = Files.copy(a, tmp.resolve("b.journal"));
    Path bSnaps = Files.createDirectory(tmp.resolve("b.journal.snapshots"));
    try (var files = Files.list(FileSnapshotStore.beside(a).directory())) {
      for (Path f : files.toList()) {
        Files.copy(f, bSnaps.resolve(f.getFileName()));
      }
    }
    Path record = bSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE);
    assertThat(refusedInUse(FileSnapshotStore.beside(b), b))
        .contains("snapshot folder " + bSnaps + ", named for journal " + b.toRealPath())
        .contains("records the snapshots of journal " + a.toRealPath())
        .contains("it was copied from")
        .contains("Run " + a.toRealPath() + " instead")
        .contains("spent once in each")
        .contains("remove " + record + " (that file only");
    // Done as it says, the copy's start claims its folder and its first save records it.
    Files.delete(record);
    FileSnapshotStore store = FileSnapshotStore.beside(b);
    try (SnapshotFolderClaim claim = store.claim(b)) {
      store.save(FileSnapshotStoreTest.at(4));
    }
    assertThat(record).hasContent(b.toRealPath().toString());
  }

  /**
   * Regression: with no record (an older version's folder), a claim for another journal on a folder
   * named for {@code a.journal} was taken, and its first save then recorded the folder as that
   * journal's, so a.journal's own steward was refused its snapshots from then on.
   */
  @Test
  void anOlderVersionsFolder_besideAnotherJournal_isThatJournalsByName() throws Exception {
    Path a = journalWithASnapshot("a.journal");
    Path aSnaps = FileSnapshotStore.beside(a).directory();
    Files.delete(aSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE));
    Path b = Files.writeString(tmp.resolve("b.journal"), "");
    FileSnapshotStore configured = new FileSnapshotStore(aSnaps);
    assertThat(refusedInUse(configured, b))
        .contains("snapshot folder " + aSnaps + " is named for journal " + a.toRealPath())
        .contains("no " + SnapshotFolderClaim.JOURNAL_FILE + " to say whose")
        .contains("give " + b.toRealPath() + " a snapshot folder of its own")
        .contains(
            "write its path, "
                + b.toRealPath()
                + ", as the one line of "
                + aSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE));
    assertThat(aSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE)).doesNotExist();
    // Its own journal claims it as before, and records itself at its first save.
    FileSnapshotStore own = FileSnapshotStore.beside(a);
    try (SnapshotFolderClaim claim = own.claim(a)) {
      own.save(FileSnapshotStoreTest.at(4));
    }
    assertThat(aSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE))
        .hasContent(a.toRealPath().toString());
    // Once the journal it is named for is gone, nothing says whose they are by name.
    Files.delete(aSnaps.resolve(SnapshotFolderClaim.JOURNAL_FILE));
    Files.delete(a);
    configured.claim(b).close();
  }
}
