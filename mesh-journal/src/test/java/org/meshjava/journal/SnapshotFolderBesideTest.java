package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * The default snapshot folder of a journal reached through a symbolic link (SPEC.md §60.8): beside
 * the file the link leads to, under that file's name. It used to be beside the name given, so one
 * journal had a snapshot folder per name ({@code link.journal.snapshots} beside {@code
 * a.journal.snapshots}), and a stale folder under one name weakened the check against rollback.
 */
class SnapshotFolderBesideTest {
  @TempDir Path tmp;

  @Test
  void aJournalThroughASymlink_hasTheSnapshotFolderOfItsRealName() throws Exception {
    Path real = Files.createFile(tmp.resolve("a.journal"));
    Path link = Files.createSymbolicLink(tmp.resolve("link.journal"), real.getFileName());
    assertThat(FileSnapshotStore.beside(link).directory())
        .isEqualTo(tmp.toRealPath().resolve("a.journal.snapshots"));
    // And its archived segments, which a start through the other name must find too.
    assertThat(JournalSegments.directory(link))
        .isEqualTo(tmp.toRealPath().resolve("a.journal.segments"));
  }

  @Test
  void aLinkToAJournalNotYetMade_leadsWhereOpeningItCreatesIt() throws Exception {
    Path link = Files.createSymbolicLink(tmp.resolve("link.journal"), Path.of("data/new.journal"));
    assertThat(FileSnapshotStore.beside(link).directory())
        .isEqualTo(tmp.toAbsolutePath().resolve("data/new.journal.snapshots"));
  }

  @Test
  void aJournalByItsOwnName_keepsTheFolderBesideThatName() {
    Path plain = tmp.resolve("b.journal");
    assertThat(FileSnapshotStore.beside(plain).directory())
        .isEqualTo(tmp.resolve("b.journal.snapshots"));
  }
}
