package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.journal.internal.JournalFile;

class FileJournalTest {
  @TempDir Path dir;

  @Test
  void open_refusesWhatIsNotARegularFile_soNoRecordCanVanish() throws Exception {
    // /dev/null takes every record and every sync: grants would be honoured on a journal that
    // keeps nothing. Reached directly and through a link; a folder is refused the same way.
    Path link = Files.createSymbolicLink(dir.resolve("linked.journal"), Path.of("/dev/null"));
    Path folder = Files.createDirectory(dir.resolve("folder.journal"));
    for (Path p : List.of(Path.of("/dev/null"), link, folder)) {
      assertThatThrownBy(() -> FileJournal.open(p))
          .as(p.toString())
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
                assertThat(e.getMessage()).contains(p.toString()).contains("not a regular file");
              });
    }
  }

  @Test
  void open_namesTheReason_whenTheFolderCannotBeMade() throws Exception {
    Path blocker = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> FileJournal.open(blocker.resolve("j.journal")))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("cannot open " + blocker.resolve("j.journal"));
    Path missingRoot = Path.of("/proc/no-such-folder/j.journal");
    assertThatThrownBy(() -> FileJournal.open(missingRoot))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("no such file or folder /proc/no-such-folder");
  }

  static final org.meshjava.core.crypto.SigningKey CALLER =
      org.meshjava.core.crypto.SigningKey.generate();
  static final org.meshjava.jcp.GrantChain CHAIN = chain();

  static org.meshjava.jcp.GrantChain chain() {
    try {
      Instant t = Instant.parse("2026-11-29T00:00:00Z");
      org.meshjava.core.crypto.SigningKey issuer = org.meshjava.core.crypto.SigningKey.generate();
      var root =
          org.meshjava.jcp.Jcp.issueRoot(
              issuer, org.meshjava.jcp.Jcp.identity(CALLER), 1_000_000, t, t.plusSeconds(60));
      return org.meshjava.jcp.Jcp.delegate(
          CALLER,
          root,
          org.meshjava.jcp.Jcp.identity(org.meshjava.core.crypto.SigningKey.generate()),
          1_000);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JournalEntry authorised(int i) {
    try {
      var req =
          org.meshjava.core.ServeRequest.generation(
              ContentId.ofBytes(new byte[] {(byte) i}),
              3,
              new org.meshjava.core.ServeBounds(4, org.meshjava.core.Fidelity.F1, 100));
      return new JournalEntry.Authorised(
          org.meshjava.jcp.Presentation.sign(
              CALLER, CHAIN, req.id(), org.meshjava.jcp.PresentationNonce.of(new byte[16])),
          req,
          Optional.empty(),
          "backend-" + i,
          Instant.ofEpochMilli(1_700_000_000_000L + i));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JournalEntry sealed(int i) {
    return new JournalEntry.Sealed(i, ContentId.ofBytes(new byte[] {(byte) i}));
  }

  @Test
  void appendedRecords_areRecoveredInOrder_afterReopen() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(authorised(0));
      j.append(
          new JournalEntry.Debited(
              1, Energy.estimated(500), 500, Optional.of("caveat-unsatisfied")));
      j.append(sealed(0));
      j.append(authorised(1));
    }
    try (FileJournal j = FileJournal.open(p)) {
      // The chain is recorded once, before the first authorisation that presents it.
      assertThat(j.recovered())
          .extracting(r -> r.entry().getClass().getSimpleName())
          .containsExactly("Chain", "Authorised", "Debited", "Sealed", "Authorised");
      assertThat(j.recovered().get(1).entry()).isEqualTo(authorised(0));
      assertThat(j.recovered().get(4).entry()).isEqualTo(authorised(1));
      assertThat(j.recovered().get(2).entry())
          .isEqualTo(
              new JournalEntry.Debited(
                  1, Energy.estimated(500), 500, Optional.of("caveat-unsatisfied")));
      JournalRecord next = j.append(sealed(1));
      assertThat(next.seq()).isEqualTo(5);
      assertThat(next.prev())
          .contains(
              ContentId.ofBytes(Files.readAllLines(p).get(4).getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void records_chainByTheHashOfThePreviousLine() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      for (int i = 0; i < 5; i++) {
        j.append(sealed(i));
      }
    }
    List<String> lines = Files.readAllLines(p);
    assertThat(lines.get(0)).startsWith("{\"seq\":0,\"entry\":");
    for (int i = 1; i < lines.size(); i++) {
      String prev = ContentId.ofBytes(lines.get(i - 1).getBytes(StandardCharsets.UTF_8)).hex();
      assertThat(lines.get(i)).startsWith("{\"seq\":" + i + ",\"prev\":\"" + prev + "\"");
    }
  }

  @Test
  void tornFinalLine_isDropped_andTheJournalOpens() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(sealed(0));
      j.append(sealed(1));
    }
    Files.write(
        p,
        "{\"seq\":2,\"prev\":\"ab".getBytes(StandardCharsets.UTF_8),
        java.nio.file.StandardOpenOption.APPEND);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.recovered()).hasSize(2);
      assertThat(j.append(sealed(2)).seq()).isEqualTo(2);
    }
    assertThat(Files.readAllLines(p)).hasSize(3);
  }

  /**
   * Regression: a journal whose record 0 was damaged within its first seven bytes (where every
   * record begins {@code {"seq":}) was refused as "not a mesh journal", as a README or an image is,
   * which sent its operator looking for another file. The line after it is record 1, so it is a
   * damaged journal: refused {@code CORRUPT} at record 0, saying to restore it. A file that is no
   * journal is still said to be none (JournalNotAJournalTest).
   */
  @Test
  void aJournalWhoseFirstBytesWereDamaged_isRefusedAtRecordZero_notAsNoJournal() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(sealed(0));
      j.append(sealed(1));
    }
    byte[] journal = Files.readAllBytes(p);
    for (int at = 0; at < "{\"seq\":".length(); at++) {
      byte[] damaged = journal.clone();
      damaged[at] = 'X';
      Path d = Files.write(dir.resolve("damaged-" + at + ".journal"), damaged);
      assertThatThrownBy(() -> FileJournal.open(d))
          .as("damaged at byte " + at)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e.seq()).hasValue(0);
                assertThat(e.getMessage())
                    .startsWith("journal record 0: the first line of " + d + " is damaged")
                    .contains("restore it from a copy")
                    .doesNotContain("not a mesh journal");
              });
    }
    // One line and nothing after it to tell it by: no more a journal than other JSON is.
    Path one =
        Files.write(
            dir.resolve("one.journal"),
            ("X" + Files.readAllLines(p).get(0).substring(1) + "\n")
                .getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> FileJournal.open(one)).hasMessageContaining("is not a mesh journal");
  }

  /**
   * Regression: the damaged-first-line check knew record 0 only. A live file whose first records
   * were archived begins at a later record, so with its first bytes damaged the line after it does
   * not begin as record 1 does, and the file was refused as "not a mesh journal". It is refused
   * {@code CORRUPT} at the record its first line held, as an unarchived journal is at record 0.
   */
  @Test
  void anArchivedLiveFileWhoseFirstBytesWereDamaged_isRefusedAtItsFirstRecord() throws Exception {
    Path p = dir.resolve("archived.journal");
    try (FileJournal j = FileJournal.open(p)) {
      for (int i = 0; i < 10; i++) {
        j.append(sealed(i));
      }
    }
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    byte[] live = Files.readAllBytes(p);
    live[1] = 'X';
    Files.write(p, live);
    assertThatThrownBy(() -> FileJournal.open(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(4);
              assertThat(e.getMessage())
                  .startsWith("journal record 4: the first line of " + p + " is damaged")
                  .contains("restore it from a copy")
                  .doesNotContain("not a mesh journal");
            });
  }

  /**
   * Regression: a first append cut short by a power loss can leave zeros where its bytes were to go
   * (the file's length written before its data: XFS, ext4 with data=writeback), as a later append
   * can. After a record such a tail was dropped as torn; as the first line, the check that the file
   * begins {@code {"seq":} refused the journal as "not a mesh journal", so a steward stopped before
   * its first record could not start again until its file was removed by hand.
   */
  @Test
  void aFirstAppendLeftAsZeros_isATornAppend_andTheJournalOpens() throws Exception {
    byte[] zeros = new byte[40];
    byte[] begun = new byte[40];
    System.arraycopy("{\"se".getBytes(StandardCharsets.US_ASCII), 0, begun, 0, 4);
    for (byte[] torn : List.of(zeros, begun)) {
      Path p = Files.write(dir.resolve("zeros-" + torn[0] + ".journal"), torn);
      try (FileJournal j = FileJournal.open(p)) {
        assertThat(j.recovered()).isEmpty();
        assertThat(j.append(sealed(0)).seq()).isZero();
      }
      assertThat(Files.readAllLines(p)).hasSize(1).first().asString().startsWith("{\"seq\":0,");
    }
    // Zeros after other bytes, or other bytes after zeros, are no torn record: no append leaves
    // them, and the first append would cut them away.
    byte[] zerosThenData = new byte[40];
    zerosThenData[30] = 'x';
    for (byte[] other : List.of(new byte[] {'#', ' ', 'x', 0, 0}, zerosThenData)) {
      Path p = Files.write(dir.resolve("other-" + other[0] + ".journal"), other);
      assertThatThrownBy(() -> FileJournal.open(p))
          .isInstanceOf(JournalException.class)
          .hasMessageContaining("is not a mesh journal");
      assertThat(Files.readAllBytes(p)).isEqualTo(other);
    }
  }

  @Test
  void editedMiddleRecord_refusesToOpen_namingTheRecordAfterIt() throws Exception {
    Path p = fiveRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    lines.set(2, lines.get(2).replace("\"sequence\":2", "\"sequence\":7"));
    Files.write(p, lines);
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(3);
            });
  }

  @Test
  void removedMiddleRecord_refusesToOpen() throws Exception {
    Path p = fiveRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    lines.remove(2);
    Files.write(p, lines);
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(2);
            });
  }

  @Test
  void movedRecord_refusesToOpen() throws Exception {
    Path p = fiveRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    String moved = lines.remove(1);
    lines.add(3, moved);
    Files.write(p, lines);
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
  }

  @Test
  void duplicatedFinalRecord_isCorrupt_whenTheRecordsAreRead() throws Exception {
    // The end is found from the last line alone, and a copy of it carries the same sequence and
    // hash; a read that stops at that count must still see the line past it, or a steward would
    // append after the copy and make the journal unverifiable.
    Path p = fiveRecords();
    copyLastLine(p);
    assertMoreThanFiveRecords(() -> openAndRead(p));
  }

  private static void copyLastLine(Path p) throws java.io.IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    lines.add(lines.getLast());
    Files.write(p, lines);
  }

  private static void assertMoreThanFiveRecords(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable read) {
    assertThatThrownBy(read)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains("more than its 5 records");
            });
  }

  @Test
  void duplicatedFinalRecord_isCorrupt_whenReadFromThePositionAtItsEnd() throws Exception {
    // A restart from a snapshot taken at the journal's end reads no record: the copy of the last
    // line matches the snapshot's count and hash, but the file no longer ends where it did.
    Path p = dir.resolve("j.log");
    JournalPosition end;
    try (FileJournal j = FileJournal.open(p)) {
      for (int i = 0; i < 5; i++) {
        j.append(sealed(i));
      }
      end = j.position();
    }
    copyLastLine(p);
    try (FileJournal j = FileJournal.open(p)) {
      assertMoreThanFiveRecords(() -> j.read(end, new java.util.HashMap<>(), r -> {}));
    }
  }

  @Test
  void nonCanonicalLine_refusesToOpen() throws Exception {
    Path p = fiveRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    lines.set(0, lines.get(0).replace("{\"seq\":0,", "{\"seq\": 0,"));
    Files.write(p, lines);
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(0);
            });
  }

  @Test
  void garbageLine_isCorrupt_notACrash() throws Exception {
    Path p = dir.resolve("j.log");
    Files.write(p, List.of("\u0000\u00ff not json at all"));
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
  }

  /**
   * Regression: an editor's extra newline at the end of a journal ("...}\n\n") was refused only as
   * "the line at byte N has no seq", saying neither that the line is empty nor what to do. It is
   * still refused (the file was edited, and a steward drops no bytes it did not write), naming the
   * empty line, the record before it and the remedy.
   */
  @Test
  void anEmptyLineAtTheEnd_isRefusedAsAnEmptyLineAfterTheLastRecord_sayingToRemoveIt()
      throws Exception {
    Path p = fiveRecords();
    long size = Files.size(p);
    Files.write(p, new byte[] {'\n'}, java.nio.file.StandardOpenOption.APPEND);
    assertRefusedAsEmptyLine(p, size, 4);
    // Several empty lines: the first is named, after the same record.
    Files.write(p, new byte[] {'\n', '\n'}, java.nio.file.StandardOpenOption.APPEND);
    assertRefusedAsEmptyLine(p, size, 4);
    assertThat(Files.size(p)).isEqualTo(size + 3);
  }

  @Test
  void anEmptyLineBetweenRecords_isRefusedAsAnEmptyLineAfterTheRecordBeforeIt() throws Exception {
    Path p = fiveRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(p));
    long at = 0;
    for (int i = 0; i < 3; i++) {
      at += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
    }
    lines.add(3, "");
    Files.write(p, lines);
    assertRefusedAsEmptyLine(p, at, 2);
  }

  private static void assertRefusedAsEmptyLine(Path p, long at, long after) {
    assertThatThrownBy(() -> openAndRead(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e)
                  .hasMessageContaining("the line at byte " + at + " of " + p + " is empty")
                  .hasMessageContaining("after record " + after)
                  .hasMessageContaining("remove the empty line")
                  .hasMessageNotContaining("has no seq");
            });
  }

  /** A line of {@code length} bytes that is no record, then a newline. */
  private static byte[] longLine(int length) {
    byte[] line = new byte[length + 1];
    java.util.Arrays.fill(line, (byte) 'x');
    line[length] = '\n';
    return line;
  }

  @Test
  void aLineLongerThanAnyRecord_isCorrupt_notHeld_wherever_itStands() throws Exception {
    int tooLong = org.meshjava.journal.internal.LineReader.MAX_LINE_BYTES + 1;
    byte[] records = Files.readAllBytes(fiveRecords());
    // Last: opening reads the last whole line to find the end.
    Path last = dir.resolve("last.log");
    Files.write(last, records);
    Files.write(last, longLine(tooLong), java.nio.file.StandardOpenOption.APPEND);
    // First: opening reads the first line for the first sequence.
    Path first = dir.resolve("first.log");
    Files.write(first, longLine(tooLong));
    Files.write(first, records, java.nio.file.StandardOpenOption.APPEND);
    assertRefusedAsTooLong(last);
    assertRefusedAsTooLong(first);
  }

  @Test
  void aLongLineInTheMiddle_isCorrupt_whenTheRecordsAreRead() throws Exception {
    Path p = fiveRecords();
    List<String> lines = Files.readAllLines(p);
    try (java.io.OutputStream out = Files.newOutputStream(p)) {
      for (int i = 0; i < lines.size(); i++) {
        if (i == 2) {
          out.write(longLine(org.meshjava.journal.internal.LineReader.MAX_LINE_BYTES + 1));
        }
        out.write((lines.get(i) + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    assertRefusedAsTooLong(p);
  }

  /**
   * Regression: a final line without a newline was dropped as an append cut short however long it
   * was, so a journal whose file had gigabytes appended without a newline opened (and was cut back
   * at the first append) while {@code mesh journal inspect} refused it as longer than any record.
   * No append writes more than a record line, so such a tail is damage. Found by a tampering sweep.
   */
  @Test
  void aFinalLineWithoutANewline_longerThanAnyRecord_isCorrupt_notATornAppend() throws Exception {
    Path p = fiveRecords();
    long size = Files.size(p);
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(p.toFile(), "rw")) {
      // Sparse: zero bytes, no newline, one more than a line may hold.
      f.setLength(size + org.meshjava.journal.internal.LineReader.MAX_LINE_BYTES + 1);
    }
    assertRefusedAsTooLong(p);
    assertThat(Files.size(p)).isGreaterThan(size);
    // One byte shorter, it is what a torn append could leave, and is dropped as one.
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(p.toFile(), "rw")) {
      f.setLength(size + org.meshjava.journal.internal.LineReader.MAX_LINE_BYTES);
    }
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(5);
    }
  }

  private static void assertRefusedAsTooLong(Path p) {
    assertThatThrownBy(() -> openAndRead(p))
        .as(p.getFileName().toString())
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e).hasMessageContaining("is longer than");
            });
  }

  @Test
  void aFileReplacedWhileItIsBeingLocked_isLetGo_andTheFileThePathNamesNowIsOpened()
      throws Exception {
    Path p = dir.resolve("j.log");
    Path next = dir.resolve("next.log");
    try (FileJournal j = FileJournal.open(next)) {
      j.append(authorised(0));
      j.append(sealed(0));
    }
    try (FileJournal j = FileJournal.open(p)) {
      j.append(sealed(7));
    }
    // As an archive does under its lock: a new file renamed over the journal, between this
    // opener's open and its lock.
    java.util.concurrent.atomic.AtomicBoolean replaced =
        new java.util.concurrent.atomic.AtomicBoolean();
    FileJournal.Locker renamingFirst =
        ch -> {
          if (!replaced.getAndSet(true)) {
            Files.move(next, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
          return ch.tryLock();
        };
    try (FileJournal j = FileJournal.open(p, renamingFirst)) {
      assertThat(j.position().count()).isEqualTo(3);
      j.append(sealed(1));
    }
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.recovered())
          .extracting(r -> r.entry().getClass().getSimpleName())
          .containsExactly("Chain", "Authorised", "Sealed", "Sealed");
    }
  }

  @Test
  void secondOpenInThisProcess_failsNamingTheJournal() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal held = FileJournal.open(p)) {
      assertThatThrownBy(() -> openAndRead(p))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED);
                assertThat(e.getMessage()).contains(p.toString());
              });
    }
    try (FileJournal reopened = FileJournal.open(p)) {
      assertThat(reopened.recovered()).isEmpty();
    }
  }

  @Test
  void concurrentAppends_formOneChain_andAllAreDurable() throws Exception {
    Path p = dir.resolve("j.log");
    int threads = 8;
    int each = 200;
    try (FileJournal j = FileJournal.open(p);
        ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int base = t * each;
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    j.append(sealed(base + i));
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    }
    JournalFile.Contents c = JournalFile.read(p);
    assertThat(c.records()).hasSize(threads * each);
    assertThat(c.tornTail()).isZero();
  }

  @Test
  void closedJournal_refusesAppends() throws Exception {
    FileJournal j = FileJournal.open(dir.resolve("j.log"));
    j.close();
    assertThatThrownBy(() -> j.append(sealed(0)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CLOSED));
  }

  private Path fiveRecords() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      for (int i = 0; i < 5; i++) {
        j.append(sealed(i));
      }
    }
    return p;
  }

  /**
   * Opens and reads every record, as a steward's recovery does: opening finds only the end, so a
   * broken chain is refused by the read, naming the record.
   */
  private static void openAndRead(Path p) throws JournalException {
    try (FileJournal j = FileJournal.open(p)) {
      j.read(JournalPosition.GENESIS, new java.util.HashMap<>(), r -> {});
    }
  }
}
