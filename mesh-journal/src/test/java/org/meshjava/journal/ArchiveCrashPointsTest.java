package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * The archive's pending-segment protocol (SPEC.md 60.8) stopped at every step. An archive writes
 * the segment folder's marker, then the segment as {@code <first>.jsonl.pending}, forces it and its
 * name, writes and renames the live file's new beginning over the journal, forces that, and only
 * then names the segment. Every step between two file operations ends in a force, so stopping the
 * archive at each force in turn (before it forces) leaves every state a kill can leave. Stopped by
 * an unchecked exception the archive does not catch, its files stay as a kill leaves them; stopped
 * by an {@link IOException}, the archive's own failure path runs. Either way the journal then opens
 * holding every record once, what {@code mesh journal verify} reads without the lock agrees with
 * what the opening reads, no pending segment is left, and the next archive completes.
 */
class ArchiveCrashPointsTest {
  @TempDir Path dir;

  /** What a kill does to an archive: it stops, and nothing of it runs after. */
  static final class Killed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Killed() {
      super("killed");
    }
  }

  /** A forcer that stops the archive at its {@code n}th force (from 1), before forcing. */
  private static Forcer stopAt(int n, boolean kill) {
    int[] seen = {0};
    return (channel, file, metaData) -> {
      if (++seen[0] == n) {
        if (kill) {
          throw new Killed();
        }
        throw new IOException("Input/output error");
      }
      channel.force(metaData);
    };
  }

  /** A forcer that counts. */
  private static Forcer counting(int[] seen) {
    return (channel, file, metaData) -> {
      seen[0]++;
      channel.force(metaData);
    };
  }

  private static long archive(Path p, int upTo, Forcer forcer) throws Exception {
    return FileJournal.archive(
        p,
        JournalArchiveTest.positionAt(LiveFileOlderThanArchiveTest.lines(p), upTo, -1),
        new HashMap<>(),
        forcer);
  }

  private static void append(Path p, int from, int n) throws JournalException {
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = from; i < from + n; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
  }

  /** The files in the segment folder whose names end {@code .pending}. */
  private static List<Path> pending(Path p) throws IOException {
    Path d = JournalSegments.directory(p);
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return s.filter(f -> f.getFileName().toString().endsWith(".pending")).toList();
    }
  }

  /** How the journal was before the archive that is stopped. */
  private enum Before {
    /** Nothing archived yet: the first archive makes the folder and its marker. */
    NOTHING_ARCHIVED,
    /** One archive done: the folder carries the marker. */
    ARCHIVED_ONCE,
    /**
     * A folder a version that named segments first archived, holding what its killed archive left
     * (a segment named for the live file's first record): this version's first archive there.
     */
    OLD_FOLDER_WITH_A_KILLED_SEGMENT
  }

  /** Makes the journal {@code p} as {@code before} says; the archive to stop cuts at record 8. */
  private static void make(Path p, Before before) throws Exception {
    FileJournalStreamTest.journal(p, 6);
    if (before != Before.NOTHING_ARCHIVED) {
      archive(p, 3, Forcer.OS);
    }
    if (before == Before.OLD_FOLDER_WITH_A_KILLED_SEGMENT) {
      Files.delete(JournalSegments.marker(p));
      Files.delete(JournalSegments.markerTwin(p));
      byte[] live = Files.readAllBytes(p);
      Files.write(JournalSegments.file(p, 3), java.util.Arrays.copyOf(live, live.length / 2));
    }
    append(p, 6, 6); // records 0..11
  }

  private static int forcesOfAWholeArchive(Path scratch, Before before) throws Exception {
    make(scratch, before);
    int[] seen = {0};
    assertThat(archive(scratch, 8, counting(seen))).isPositive();
    return seen[0];
  }

  @Test
  void anArchiveStoppedAtEveryStep_losesNoRecord_duplicatesNone_andOpens() throws Exception {
    int cases = 0;
    for (Before before : Before.values()) {
      int steps = forcesOfAWholeArchive(dir.resolve("whole-" + before), before);
      assertThat(steps).as(before.toString()).isGreaterThanOrEqualTo(5);
      for (int step = 1; step <= steps; step++) {
        int n = step;
        for (boolean kill : new boolean[] {true, false}) {
          Path p = dir.resolve(before + "-" + n + "-" + kill);
          make(p, before);
          List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
          assertThat(all).hasSize(12);
          String at = before + ", stopped at force " + n + (kill ? " (killed)" : " (failed)");
          assertThatThrownBy(() -> archive(p, 8, stopAt(n, kill)))
              .as(at)
              .isInstanceOf(kill ? Killed.class : JournalException.class);
          assertRecovers(p, all, at);
          cases++;
        }
      }
    }
    assertThat(cases).isGreaterThanOrEqualTo(36);
  }

  /**
   * A kill while the pending segment was being written: it may hold part of a line, or nothing. The
   * live file still holds every record, so the part copy goes.
   */
  @Test
  void aPendingSegmentCutAtAnyLength_beforeTheCut_isRemoved() throws Exception {
    for (int length = 0; length < 400; length += 7) {
      Path p = dir.resolve("j" + length);
      make(p, Before.ARCHIVED_ONCE);
      List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
      byte[] live = Files.readAllBytes(p);
      Path pending = JournalSegments.pendingFile(p, FileJournal.firstSequence(p));
      Files.write(pending, java.util.Arrays.copyOf(live, Math.min(length, live.length)));
      assertRecovers(p, all, "a pending segment of " + length + " bytes");
    }
  }

  /** Checks that {@code p}, left by a stopped archive, holds {@code all} once and recovers. */
  private static void assertRecovers(Path p, List<JournalRecord> all, String at) throws Exception {
    List<Path> left = pending(p);
    // verify's read: no lock, nothing changed, the records the opening will read
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).as(at).isEqualTo(all);
    assertThat(pending(p)).as(at).isEqualTo(left);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).as(at).isEqualTo(all);
      assertThat(pending(p)).as(at).isEmpty();
    }
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).as(at).isEqualTo(all);
    // and the archive goes on from there
    archive(p, 10, Forcer.OS);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).as(at).isEqualTo(all);
    assertThat(FileJournal.firstSequence(p)).as(at).isEqualTo(10);
    assertThat(pending(p)).as(at).isEmpty();
    assertThat(JournalSegments.marked(p)).as(at).isTrue();
  }

  /**
   * The case a segment named first could not tell from a killed archive: a copy of the journal
   * taken before an archive, which still holds records after those it archived and begins where the
   * last segment begins. Under the marker, no crash leaves a segment so named, so the copy is
   * refused, by an opening and by verify's read alike, and left as it was.
   */
  @Test
  void aCopyTakenBeforeTheLastArchive_beginningWhereItsSegmentBegins_isRefused() throws Exception {
    Path p = dir.resolve("j");
    make(p, Before.ARCHIVED_ONCE); // segment 0 holds 0..2, the live file 3..11
    Path copy = dir.resolve("copy");
    Files.copy(p, copy);
    archive(p, 8, Forcer.OS); // segment 3 holds 3..7, the live file 8..11
    append(p, 12, 2);
    Files.copy(copy, p, StandardCopyOption.REPLACE_EXISTING); // 3..11: begins where segment 3 does
    byte[] before = Files.readAllBytes(p);
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> FileJournal.open(p).close(),
            () -> FileJournal.firstSequence(p),
            () -> FileJournalStreamTest.scan(p, JournalPosition.GENESIS))) {
      assertThatThrownBy(call)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
          .hasMessageContaining("older than the records archived from it")
          .hasMessageContaining("the live file begins at record 3, where archived segment")
          .hasMessageContaining(JournalSegments.file(p, 3).toString())
          .hasMessageContaining("a copy of the journal taken before that archive");
    }
    assertThat(Files.readAllBytes(p)).isEqualTo(before);

    // The same files in a folder an older version archived (no marker): judged as before, as what
    // its killed archive leaves, and opened.
    Files.delete(JournalSegments.marker(p));
    Files.delete(JournalSegments.markerTwin(p));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(12);
    }
  }

  /** Pending segments no archive leaves are refused, naming them, and left where they are. */
  @Test
  void aPendingSegmentNoArchiveLeaves_isRefused_andKept() throws Exception {
    Path p = dir.resolve("j");
    make(p, Before.ARCHIVED_ONCE); // segment 0 holds 0..2, the live file 3..11
    byte[] segment0 = Files.readAllBytes(JournalSegments.file(p, 0));

    // without the marker: no archive of this version wrote it
    Files.delete(JournalSegments.marker(p));
    Files.delete(JournalSegments.markerTwin(p));
    Path stray = JournalSegments.pendingFile(p, 3);
    Files.write(stray, Files.readAllBytes(p));
    assertStray(p, stray, "lies beside a journal without " + JournalSegments.marker(p));
    Files.writeString(JournalSegments.marker(p), "");
    Files.delete(stray);

    // beside a segment of the same name
    Path twin = JournalSegments.pendingFile(p, 0);
    Files.write(twin, segment0);
    assertStray(p, twin, "lies beside a segment of the same name");
    Files.delete(twin);

    // a folder named so
    Files.createDirectory(stray);
    assertStray(p, stray, "is not a file");
    Files.delete(stray);

    // a link named so
    Files.createSymbolicLink(stray, p);
    assertStray(p, stray, "is not a file");
    Files.delete(stray);

    // named after the live file's first record: the live file is older than what it holds
    Path later = JournalSegments.pendingFile(p, 5);
    Files.write(later, segment0);
    assertStray(p, later, "holds records after the live file's first, 3");
    Files.delete(later);

    // holding records that do not reach the live file
    Path shortOne = JournalSegments.file(p, 0);
    Files.move(shortOne, JournalSegments.pendingFile(p, 0));
    Files.write(
        JournalSegments.pendingFile(p, 0),
        java.util.Arrays.copyOf(segment0, indexOfSecondLine(segment0)));
    assertStray(
        p,
        JournalSegments.pendingFile(p, 0),
        "holds records 0 to 0, but the live file begins at record 3");
  }

  /**
   * The live file removed or emptied after an archive's cut and before its segment was named: the
   * pending segment then holds the only copy of its records, and is kept; the journal is refused,
   * not made again as a new one.
   */
  @Test
  void aPendingSegment_withTheLiveFileGone_isRefused_andKept() throws Exception {
    Path p = dir.resolve("j");
    make(p, Before.ARCHIVED_ONCE);
    // The fifth force is the cut's: the first is of the proof files' folder, forced again though
    // both are there (ArchiveProofForcedTest), then the pending segment, its folder, the new file.
    assertThatThrownBy(() -> archive(p, 8, stopAt(5, true))).isInstanceOf(Killed.class);
    Path pending = JournalSegments.pendingFile(p, 3);
    assertThat(pending).exists();
    assertThat(FileJournal.firstSequence(p)).isEqualTo(8); // the cut was made
    Files.write(p, new byte[0]);
    assertStray(p, pending, "holds archived records, but the live file holds none");
    Files.delete(p);
    assertThatThrownBy(() -> FileJournal.open(p).close())
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining(pending.toString());
    assertThat(p).doesNotExist();
    assertThat(pending).exists();
  }

  private static int indexOfSecondLine(byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        return i + 1;
      }
    }
    return bytes.length;
  }

  private static void assertStray(Path p, Path stray, String what) throws Exception {
    boolean file = Files.isRegularFile(stray, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    byte[] before = file ? Files.readAllBytes(stray) : null;
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () ->
                FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, Forcer.OS)
                    .close(),
            () -> FileJournal.firstSequence(p))) {
      assertThatThrownBy(call)
          .as(what)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
          .hasMessageContaining("pending segment " + stray)
          .hasMessageContaining(what)
          .hasMessageContaining("which no archive leaves");
    }
    assertThat(Files.exists(stray, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isTrue();
    if (file) {
      assertThat(Files.readAllBytes(stray)).isEqualTo(before);
    }
  }
}
