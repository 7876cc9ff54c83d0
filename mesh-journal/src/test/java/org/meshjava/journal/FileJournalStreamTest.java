package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.JournalFile;

/**
 * The file journal read as a restart reads it (SPEC.md §60.3, §60.8): its end found from its last
 * bytes, its records streamed from any position (with or without a locator hint), from archived
 * segments too, and its durability failures.
 */
class FileJournalStreamTest {
  @TempDir Path dir;

  static JournalEntry sealed(int i) {
    return new JournalEntry.Sealed(i, ContentId.ofBytes(new byte[] {(byte) i, (byte) (i >> 8)}));
  }

  /** Writes {@code n} records (unsynced: fast) and returns the file. */
  Path journal(int n) throws JournalException {
    return journal(dir.resolve("j.log"), n);
  }

  /** Writes {@code n} records (unsynced: fast) to a new journal at {@code p} and returns it. */
  static Path journal(Path p, int n) throws JournalException {
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = 0; i < n; i++) {
        j.append(sealed(i));
      }
    }
    return p;
  }

  static List<JournalRecord> read(Journal j, JournalPosition from) throws JournalException {
    List<JournalRecord> out = new ArrayList<>();
    j.read(from, new HashMap<>(), out::add);
    return out;
  }

  static List<JournalRecord> scan(Path p, JournalPosition from) throws JournalException {
    List<JournalRecord> out = new ArrayList<>();
    FileJournal.scan(p, from, new HashMap<>(), out::add);
    return out;
  }

  /** The position after record {@code count - 1} of {@code records}, with {@code locator}. */
  static JournalPosition after(Path p, int count, long locator) throws IOException {
    List<String> lines = Files.readAllLines(p);
    return new JournalPosition(
        count,
        Optional.of(ContentId.ofBytes(lines.get(count - 1).getBytes(StandardCharsets.UTF_8))),
        locator);
  }

  static long offsetOf(Path p, int record) throws IOException {
    long at = 0;
    List<String> lines = Files.readAllLines(p);
    for (int i = 0; i < record; i++) {
      at += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
    }
    return at;
  }

  @Test
  void thePosition_isTheDurableEnd() throws Exception {
    Path p = journal(3);
    try (FileJournal j = FileJournal.open(p)) {
      JournalPosition end = j.position();
      assertThat(end).isEqualTo(after(p, 3, Files.size(p)));
      j.append(sealed(3));
      assertThat(j.position()).isEqualTo(after(p, 4, Files.size(p)));
      assertThat(j.durable()).isTrue();
      assertThat(j.locked()).isTrue();
      assertThat(j.describe()).isEqualTo(j.path().toString());
      assertThat(j.refusesAppends()).isEmpty();
      j.close();
      assertThat(j.locked()).isFalse();
      assertThat(j.refusesAppends()).isPresent();
      j.close(); // twice is harmless
    }
    try (FileJournal empty = FileJournal.open(dir.resolve("a").resolve("b").resolve("new.log"))) {
      assertThat(empty.position()).isEqualTo(JournalPosition.GENESIS);
      assertThat(read(empty, JournalPosition.GENESIS)).isEmpty();
      assertThat(empty.append(sealed(0)).seq()).isZero();
    }
  }

  @Test
  void aRead_startsAtAnyPosition_withOrWithoutAGoodLocator() throws Exception {
    Path p = journal(6);
    List<JournalRecord> all = JournalFile.read(p).records();
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(read(j, JournalPosition.GENESIS)).isEqualTo(all);
      long at3 = offsetOf(p, 3);
      for (long hint :
          new long[] {
            at3,
            -1,
            0,
            1,
            at3 - 1,
            at3 + 1,
            offsetOf(p, 2),
            offsetOf(p, 4),
            Files.size(p),
            Files.size(p) + 9
          }) {
        assertThat(read(j, after(p, 3, hint))).as("hint %d", hint).isEqualTo(all.subList(3, 6));
        assertThat(scan(p, after(p, 3, hint))).as("hint %d", hint).isEqualTo(all.subList(3, 6));
      }
      assertThat(read(j, after(p, 6, -1))).isEmpty();
      assertThat(read(j, after(p, 5, -1))).isEqualTo(all.subList(5, 6));
    }
    assertThat(scan(p, JournalPosition.GENESIS)).isEqualTo(all);
    assertThat(scan(p, after(p, 6, -1))).isEmpty();
  }

  @Test
  void aPositionNotInTheJournal_isAMismatch() throws Exception {
    Path p = journal(4);
    JournalPosition foreign3 =
        new JournalPosition(3, Optional.of(ContentId.ofBytes(new byte[] {1})), -1);
    JournalPosition foreign4 =
        new JournalPosition(4, Optional.of(ContentId.ofBytes(new byte[] {1})), -1);
    JournalPosition beyond =
        new JournalPosition(5, Optional.of(ContentId.ofBytes(new byte[] {1})), -1);
    try (FileJournal j = FileJournal.open(p)) {
      for (JournalPosition bad : List.of(foreign3, foreign4, beyond)) {
        assertThatThrownBy(() -> read(j, bad))
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH));
      }
    }
    for (JournalPosition bad : List.of(foreign3, foreign4, beyond)) {
      assertThatThrownBy(() -> scan(p, bad))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH));
    }
  }

  @Test
  void aJournalHeldInThisProcess_isScannedThroughItsHolder() throws Exception {
    Path p = journal(2);
    try (FileJournal j = FileJournal.open(p)) {
      j.append(sealed(2));
      assertThat(scan(p, JournalPosition.GENESIS)).hasSize(3);
      assertThat(FileJournal.firstSequence(p)).isZero();
      assertThat(JournalFile.read(p).records()).hasSize(3);
      // the holder's lock survives both reads
      assertThat(j.locked()).isTrue();
      j.append(sealed(3));
    }
    assertThat(JournalFile.read(p).records()).hasSize(4);
  }

  @Test
  void aTornTail_isLeftOutOfAScan_andOfTheOpenJournal_andCutAtItsFirstAppend() throws Exception {
    Path p = journal(2);
    Files.write(p, "{\"seq\":2,\"pr".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    assertThat(scan(p, JournalPosition.GENESIS)).hasSize(2);
    JournalFile.Contents c = JournalFile.read(p);
    assertThat(c.records()).hasSize(2);
    assertThat(c.tornTail()).isEqualTo(12);
    assertThat(c.goodLength()).isEqualTo(Files.size(p) - 12);
    long good = Files.size(p) - 12;
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().locator()).isEqualTo(good);
    }
    // Opened and closed without an append (a start that was then refused): nothing is cut.
    assertThat(Files.size(p)).isEqualTo(good + 12);
    try (FileJournal j = FileJournal.open(p)) {
      j.append(sealed(2));
    }
    JournalFile.Contents after = JournalFile.read(p);
    assertThat(after.records()).hasSize(3);
    assertThat(after.tornTail()).isZero();
  }

  @Test
  void journalFileScan_visitsWhatReadHolds_recordByRecord() throws Exception {
    Path p = journal(4);
    Files.write(p, "{\"seq\":4,\"pr".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    JournalFile.Contents whole = JournalFile.read(p);
    List<JournalRecord> records = new ArrayList<>();
    List<byte[]> lines = new ArrayList<>();
    List<Long> progress = new ArrayList<>();
    JournalFile.End end =
        JournalFile.scan(
            p,
            progress::add,
            (r, line) -> {
              records.add(r);
              lines.add(line);
            });
    assertThat(records).isEqualTo(whole.records());
    assertThat(lines).usingRecursiveComparison().isEqualTo(whole.lines());
    assertThat(progress).containsExactly(1L, 2L, 3L, 4L);
    assertThat(end.count()).isEqualTo(4);
    assertThat(end.lastHash()).isEqualTo(whole.lastHash());
    assertThat(end.goodLength()).isEqualTo(whole.goodLength());
    assertThat(end.tornTail()).isEqualTo(whole.tornTail()).isEqualTo(12);
    assertThat(JournalFile.scan(dir.resolve("absent.log"), n -> {}, (r, line) -> {}).count())
        .isZero();
  }

  @Test
  void journalFileScan_refusesALineLongerThanAnyRecord_asCorrupt() throws Exception {
    Path p = journal(1);
    byte[] huge = new byte[org.meshjava.journal.internal.LineReader.MAX_LINE_BYTES + 2];
    java.util.Arrays.fill(huge, (byte) 'x');
    huge[huge.length - 1] = '\n';
    Files.write(p, huge, StandardOpenOption.APPEND);
    assertThatThrownBy(() -> JournalFile.scan(p, n -> {}, (r, line) -> {}))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains("longer than");
            });
  }

  @Test
  void journalFileScanner_refusesAStoredLineHoldingANewline() throws Exception {
    byte[] line = Files.readAllBytes(journal(1));
    JournalFile.Scanner scanner = JournalFile.scanner(n -> {});
    assertThatThrownBy(() -> scanner.takeStored(line))
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.getMessage()).contains("holds a newline"));
    JournalFile.Scanner fresh = JournalFile.scanner(n -> {});
    fresh.takeStored(java.util.Arrays.copyOf(line, line.length - 1));
    assertThat(fresh.end().count()).isEqualTo(1);
    assertThat(fresh.end().goodLength()).isEqualTo(line.length);
  }

  @Test
  void aTornTailLongerThanOneReadBack_isFoundAndDropped() throws Exception {
    Path p = journal(3);
    long good = Files.size(p);
    Files.write(p, new byte[200_000], StandardOpenOption.APPEND);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position()).isEqualTo(after(p, 3, good));
      assertThat(j.append(sealed(3)).seq()).isEqualTo(3);
    }
    assertThat(JournalFile.read(p).records()).hasSize(4);
  }

  @Test
  void aFileWithOnlyATornLine_opensEmpty() throws Exception {
    Path p = dir.resolve("j.log");
    Files.write(p, "{\"seq\":0".getBytes(StandardCharsets.UTF_8));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position()).isEqualTo(JournalPosition.GENESIS);
      assertThat(j.append(sealed(0)).seq()).isZero();
    }
    assertThat(JournalFile.read(p).records()).hasSize(1);
  }

  @Test
  void aLastLineWithNoSeq_refusesToOpen() throws Exception {
    Path p = journal(2);
    Files.write(p, "{}\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    assertThatThrownBy(() -> FileJournal.open(p).close())
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    Path q = dir.resolve("q.log");
    Files.write(q, "garbage\n".getBytes(StandardCharsets.UTF_8));
    Files.write(q, Files.readAllBytes(p), StandardOpenOption.APPEND);
    assertThatThrownBy(() -> FileJournal.firstSequence(q))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    // the journal is not held after a refused open
    Files.write(p, Files.readAllLines(p).subList(0, 2));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(2);
    }
  }

  @Test
  void recordsMissingFromTheFile_areCorrupt() throws Exception {
    Path p = journal(3);
    // a last line claiming record 7: the journal says it ends after record 7, but holds four lines
    Files.write(p, "{\"seq\":7}\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    assertThatThrownBy(() -> scan(p, JournalPosition.GENESIS))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(3);
            });
    JournalPosition six = new JournalPosition(6, Optional.of(ContentId.ofBytes(new byte[1])), -1);
    assertThatThrownBy(() -> scan(p, six))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(4);
            });
  }

  @Test
  void aJournalOfManyChunks_isStreamedWhole() throws Exception {
    Path p = dir.resolve("big.log");
    int n = 9_000; // about 1.5 MB: more than one of the reader's 1 MiB chunks
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      assertThat(j.durable()).isFalse();
      for (int i = 0; i < n; i++) {
        j.append(sealed(i));
      }
    }
    assertThat(Files.size(p)).isGreaterThan(1 << 20);
    try (FileJournal j = FileJournal.open(p)) {
      List<JournalRecord> all = read(j, JournalPosition.GENESIS);
      assertThat(all).hasSize(n);
      assertThat(all.getLast().seq()).isEqualTo(n - 1);
      int from = 8_000;
      assertThat(read(j, after(p, from, -1))).hasSize(n - from);
      assertThat(read(j, after(p, from, offsetOf(p, from)))).hasSize(n - from);
      assertThat(read(j, after(p, 10, -1)).getFirst().seq()).isEqualTo(10);
    }
  }

  @Test
  void aFailedSync_failsTheJournal_andEveryLaterAppend() throws Exception {
    Path p = dir.resolve("j.log");
    boolean[] fail = {false};
    FileJournal.Syncer syncer =
        (ch, length) -> {
          if (fail[0]) {
            throw new IOException("disk gone");
          }
          ch.force(false);
        };
    try (FileJournal j = FileJournal.open(p, java.nio.channels.FileChannel::tryLock, syncer)) {
      j.append(sealed(0));
      fail[0] = true;
      assertThatThrownBy(() -> j.append(sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
                assertThat(e.seq()).hasValue(1);
              });
      fail[0] = false;
      assertThat(j.refusesAppends()).isPresent();
      assertThatThrownBy(() -> j.append(sealed(2)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
      assertThat(j.position().count()).isEqualTo(1);
      // refused when enqueued, before a place in the chain is taken
      assertThatThrownBy(() -> j.enqueue(sealed(3)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
  }

  @Test
  void anAppendThatWasEnqueuedBeforeAFailure_failsWhenAwaited() throws Exception {
    Path p = dir.resolve("j.log");
    boolean[] fail = {false};
    FileJournal.Syncer syncer =
        (ch, length) -> {
          if (fail[0]) {
            throw new IOException("disk gone");
          }
        };
    try (FileJournal j = FileJournal.open(p, java.nio.channels.FileChannel::tryLock, syncer)) {
      Journal.Pending first = j.enqueue(sealed(0));
      Journal.Pending second = j.enqueue(sealed(1));
      assertThat(second.record().seq()).isEqualTo(1);
      fail[0] = true;
      assertThatThrownBy(first::await).isInstanceOf(JournalException.class);
      assertThatThrownBy(second::await)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
  }

  @Test
  void unsyncedAppends_areForcedOnClose_andReadBack() throws Exception {
    Path p = journal(3);
    List<Long> syncs = new ArrayList<>();
    try (FileJournal j =
        FileJournal.open(p, java.nio.channels.FileChannel::tryLock, (ch, len) -> syncs.add(len))) {
      j.append(sealed(3));
      j.append(sealed(4));
    }
    assertThat(syncs).hasSize(2);
    assertThat(syncs.getLast()).isEqualTo(Files.size(p));
    assertThat(JournalFile.read(p).records()).hasSize(5);
    assertThat(JournalFile.read(dir.resolve("absent.log")).records()).isEmpty();
    List<Long> progress = new ArrayList<>();
    JournalFile.read(p, progress::add);
    assertThat(progress).containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void aReadThroughTheEnd_teachesTheJournalTheChainsAlreadyRecorded() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(JournalHistory.authorised(0));
    }
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(read(j, JournalPosition.GENESIS)).hasSize(2);
      // the grant chain is recorded already: the next authorisation names it, no Chain record
      assertThat(j.append(JournalHistory.authorised(1)).seq()).isEqualTo(2);
    }
    assertThat(JournalFile.read(p).records())
        .extracting(r -> r.entry().getClass().getSimpleName())
        .containsExactly("Chain", "Authorised", "Authorised");
  }

  @Test
  void aTornTailWhoseNewlineStartsAReadBack_keepsTheLastRecord() throws Exception {
    Path p = journal(3);
    long good = Files.size(p);
    // 65 535 torn bytes: the first read back (64 KiB from the end) starts at the last whole
    // line's newline
    Files.write(p, new byte[65_535], StandardOpenOption.APPEND);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position()).isEqualTo(after(p, 3, good));
      j.append(sealed(3));
    }
    JournalFile.Contents c = JournalFile.read(p);
    assertThat(c.records()).hasSize(4);
    assertThat(c.tornTail()).isZero();
  }
}
