package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.internal.JournalSegments;

/**
 * {@code mesh journal verify}, which does not lock, judges what an archive stopped midway leaves
 * (SPEC.md 60.8, the pending-segment protocol) as the next opening under the lock settles it: a
 * pending segment left after the cut is read as the segment it is about to be named, one left
 * before it is not read, and verify changes neither; the next {@code mesh journal archive} settles
 * them. A copy of the journal taken before the last archive, beginning where its segment begins, is
 * refused by verify and {@code mesh serve} alike.
 */
class JournalArchivePendingCommandTest {
  @TempDir Path dir;

  @Test
  void verify_readsWhatAStoppedArchiveLeaves_asTheNextOpeningSettlesIt() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    Run whole = mesh("journal", "verify", h.journal.toString());
    assertThat(whole.code()).as(whole.err()).isZero();

    // Stopped after the cut, before the naming: the last segment still pending.
    Path last = h.segmentFiles().getLast();
    Path pending = last.resolveSibling(last.getFileName() + ".pending");
    Files.move(last, pending);
    Run cut = mesh("journal", "verify", h.journal.toString());
    assertThat(cut.code()).as(cut.err()).isZero();
    assertThat(cut.out()).isEqualTo(whole.out());
    assertThat(pending).exists();
    assertThat(last).doesNotExist();

    // Stopped before the cut as well, in the archive after that: a part copy of the live file.
    long first = FileJournal.firstSequence(h.journal);
    Path before = JournalSegments.pendingFile(h.journal, first);
    byte[] live = Files.readAllBytes(h.journal);
    Files.write(before, java.util.Arrays.copyOf(live, live.length / 2));
    Run both = mesh("journal", "verify", h.journal.toString());
    assertThat(both.code()).as(both.err()).isZero();
    assertThat(both.out()).isEqualTo(whole.out());
    assertThat(before).exists();

    // The next opening under the lock settles both, and verify says the same again.
    h.archive();
    assertThat(pending).doesNotExist();
    assertThat(before).doesNotExist();
    assertThat(last).exists();
    Run after = mesh("journal", "verify", h.journal.toString());
    assertThat(after.code()).as(after.err()).isZero();
  }

  /**
   * Regression: a copy of the journal taken before an archive that still held records after those
   * it archived, put back in the live file's place with the snapshots removed, began where the last
   * segment begins and read as an archive killed before its rename: {@code mesh serve} started on
   * it and {@code verify} passed it, and every spend recorded after the copy came back.
   */
  @Test
  void aCopyTakenBeforeTheLastArchive_isRefusedByServeAndVerifyAlike() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    Path copy = dir.resolve("copy");
    Files.copy(h.journal, copy);
    h.archive().serve(1, "last");
    Path segment = h.segmentFiles().getLast();
    Files.copy(copy, h.journal, StandardCopyOption.REPLACE_EXISTING);
    h.removeSnapshots();
    byte[] was = Files.readAllBytes(h.journal);

    JournalLiveFileOlderThanSegmentsTest.refusedByVerifyAndServe(
        h, segment, "a copy of the journal taken before that archive");
    assertThat(Files.readAllBytes(h.journal)).isEqualTo(was);
  }
}
