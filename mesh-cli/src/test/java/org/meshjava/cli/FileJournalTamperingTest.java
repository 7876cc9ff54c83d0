package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.JournalVerifyCheckpointsTest.rehash;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.steward.Steward;

/**
 * A tampering round on a file journal and its snapshot folder with the steward stopped (SPEC.md
 * §60.2, §60.3, §60.8), as {@link PostgresTamperingTest} is for the database: each edit is tried on
 * {@code mesh journal verify} and on {@code mesh serve}'s start, and the two must agree with the
 * SPEC and with each other (a journal verify passes must start; one a start refuses must not verify
 * clean). The edits that re-hash a changed debit are {@code JournalTamperTest}'s, in mesh-steward;
 * here the same ones go through both commands, with and without the snapshot that covers them.
 */
@Tag("slow")
class FileJournalTamperingTest {
  /** What the SPEC says of an edit: the steward starts on it (and verify passes), or neither. */
  enum Verdict {
    STARTS,
    REFUSED
  }

  /** One edit of the stopped steward's files. */
  @FunctionalInterface
  interface Tamper {
    void apply(History h) throws Exception;
  }

  /**
   * An edit, its verdict, and words both refusals carry (empty for an edit that starts).
   *
   * @param name how the case reads in the report
   */
  record Case(String name, Verdict verdict, String says, Tamper tamper) {
    @Override
    public String toString() {
      return name;
    }
  }

  @TempDir Path dir;

  /** A stopped steward's journal, snapshot folder and key file, and edits of them. */
  static final class History {
    final Path dir;
    final SigningKey key;
    final Path keyFile;
    final Path journal;
    final Path snapshots;

    History(Path dir, SigningKey key, String name) throws Exception {
      this.dir = dir;
      this.key = key;
      this.journal = dir.resolve(name + ".journal");
      this.keyFile = dir.resolve(name + ".key");
      KeyFile.write(keyFile, key, false);
      this.snapshots = FileSnapshotStore.beside(journal).directory();
    }

    /**
     * Serves {@code n} granted requests with a snapshot after the first and another at the close
     * (after the closing checkpoint, so covering every record).
     */
    History serve(int n, String prompts) throws Exception {
      SigningKey caller = SigningKey.generate();
      Instant now = Instant.now();
      GrantChain chain =
          Jcp.issueRoot(
              caller, Jcp.identity(key), 10_000_000, now.minusSeconds(60), now.plusSeconds(3600));
      boolean fresh = !Files.exists(journal);
      Steward.Builder b =
          fresh
              ? ReferenceSteward.builder(key, FileJournal.open(journal))
              : Steward.builder(key)
                  .journal(FileJournal.open(journal))
                  .meter(new org.meshjava.energy.EstimatorMeter())
                  .backend(ReferenceSteward.engine());
      try (Steward s = b.snapshots(FileSnapshotStore.beside(journal)).snapshotEvery(0).build()) {
        for (int i = 0; i < n; i++) {
          ServeRequest req = ReferenceSteward.request(prompts + " " + i);
          s.serve(req, ReferenceSteward.payload(req), Jcp.present(caller, chain, req));
          if (i == 0) {
            s.snapshot();
          }
        }
      }
      return this;
    }

    List<String> lines() throws IOException {
      return new ArrayList<>(Files.readAllLines(journal, StandardCharsets.UTF_8));
    }

    void write(List<String> lines) throws IOException {
      Files.writeString(journal, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    /** The index of the {@code n}th record of {@code type}. */
    int nth(String type, int n) throws IOException {
      List<String> lines = lines();
      int seen = 0;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains("\"type\":\"" + type + "\"") && seen++ == n) {
          return i;
        }
      }
      throw new AssertionError("no record " + n + " of type " + type);
    }

    /** The snapshot files, oldest first. */
    List<Path> snapshotFiles() throws IOException {
      try (Stream<Path> s = Files.list(snapshots)) {
        return s.filter(p -> p.getFileName().toString().endsWith(".snapshot")).sorted().toList();
      }
    }

    Path latestSnapshot() throws IOException {
      return snapshotFiles().getLast();
    }

    /** Moves the records the latest snapshot covers into segments, as an operator would. */
    History archive() {
      Run r = mesh("journal", "archive", journal.toString());
      assertThat(r.code()).as(r.err()).isZero();
      return this;
    }

    Path segments() {
      return journal.resolveSibling(journal.getFileName() + ".segments");
    }

    /**
     * The segment files under their final names, in order of their first records (a pending one,
     * SPEC.md 60.8, left out).
     */
    List<Path> segmentFiles() throws IOException {
      try (Stream<Path> s = Files.list(segments())) {
        return s.filter(f -> f.getFileName().toString().endsWith(".jsonl")).sorted().toList();
      }
    }

    /**
     * Three granted serves archived, two more served after them, and the segments then removed: a
     * live file whose first records only the snapshot stands for.
     */
    static History archivedWithoutSegments(Path dir) throws Exception {
      History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted").archive();
      h.serve(2, "later");
      h.removeSegments();
      return h;
    }

    void removeSegments() throws IOException {
      try (Stream<Path> s = Files.list(segments())) {
        for (Path p : s.toList()) {
          Files.delete(p);
        }
      }
    }

    /** An edit of the journal's lines in place. */
    @FunctionalInterface
    interface LinesEdit {
      void apply(List<String> lines) throws Exception;
    }

    /** Rewrites the journal as {@code edit} leaves its lines. */
    void editLines(LinesEdit edit) throws Exception {
      List<String> l = lines();
      edit.apply(l);
      write(l);
    }

    /** Replaces line {@code i} with what {@code edit} makes of it. */
    void editLine(int i, java.util.function.UnaryOperator<String> edit) throws IOException {
      List<String> l = lines();
      l.set(i, edit.apply(l.get(i)));
      write(l);
    }

    /** Rewrites the latest snapshot file as {@code edit} makes its bytes. */
    void editLatestSnapshot(java.util.function.UnaryOperator<byte[]> edit) throws IOException {
      Path latest = latestSnapshot();
      Files.write(latest, edit.apply(Files.readAllBytes(latest)));
    }

    /** Puts a copy of {@code file} in the latest snapshot's place. */
    void replaceLatestSnapshot(Path file) throws IOException {
      Files.copy(file, latestSnapshot(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    void removeSnapshots() throws IOException {
      for (Path p : snapshotFiles()) {
        Files.delete(p);
      }
    }
  }

  /** Makes {@code file} one byte longer than any snapshot is read, sparse: nothing is written. */
  private static void growPastTheSizeLimit(Path file) throws IOException {
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(org.meshjava.journal.Snapshot.MAX_BYTES + 1);
    }
  }

  /** A history of another journal beside the one under test. */
  private static History other(History h, SigningKey key, int n) throws Exception {
    return new History(h.dir, key, "other-" + n + "-" + Jcp.identity(key).value().substring(12, 20))
        .serve(n, "other");
  }

  static String edited(String line, String regex, String replacement) {
    String out = line.replaceFirst(regex, replacement);
    assertThat(out).as("edit %s in %s", regex, line).isNotEqualTo(line);
    return out;
  }

  /** Lowers the second debit to 1 µJ and recomputes every later {@code prev}. */
  private static void lowerADebitAndRehash(History h) throws IOException {
    List<String> l = h.lines();
    int i = h.nth("Debited", 1);
    l.set(i, edited(l.get(i), "\"debited_uj\":\\d+", "\"debited_uj\":1"));
    rehash(l, i + 1);
    h.write(l);
  }

  /**
   * Cuts the last serve's records from under the closing checkpoint, renumbering and re-hashing the
   * rest: its presentation would be unspent again.
   */
  private static void cutTheLastServe(History h) throws IOException {
    List<String> l = h.lines();
    int from = h.nth("Authorised", 2);
    l.subList(from, h.nth("Sealed", 2) + 1).clear();
    renumber(l, from);
    rehash(l, from);
    h.write(l);
  }

  private static void crBeforeTheLastLf(History h) throws IOException {
    Files.writeString(h.journal, String.join("\n", h.lines()) + "\r\n", StandardCharsets.UTF_8);
  }

  /** {@code tamper}, then every snapshot removed, so a start replays the whole journal. */
  private static Tamper withoutSnapshots(Tamper tamper) {
    return h -> {
      tamper.apply(h);
      h.removeSnapshots();
    };
  }

  /** A {@code Debited} line with its estimate's first digit made a 9. */
  static String raiseEstimate(String line) {
    return edited(line, "\"estimated_uj\":(\\d)", "\"estimated_uj\":9");
  }

  /** Gives record {@code i} the sequence of the record before it. */
  private static void lowerSeq(History h, int i) throws IOException {
    h.editLine(i, line -> edited(line, "^\\{\"seq\":\\d+", "{\"seq\":" + (i - 1)));
  }

  private static byte[] flipBit(byte[] b, int at) {
    b[at] ^= 1;
    return b;
  }

  /** The line with the character at {@code at} replaced by another hex digit. */
  private static String flipHex(String line, int at) {
    char c = line.charAt(at);
    return line.substring(0, at) + (c == '0' ? '1' : '0') + line.substring(at + 1);
  }

  private static int after(String line, String key) {
    int i = line.indexOf("\"" + key + "\":");
    assertThat(i).as("%s in %s", key, line).isNotNegative();
    return i + key.length() + 4;
  }

  /** Gives every record from {@code from} on its position as {@code seq}. */
  private static void renumber(List<String> lines, int from) {
    for (int i = from; i < lines.size(); i++) {
      lines.set(i, lines.get(i).replaceFirst("^\\{\"seq\":\\d+", "{\"seq\":" + i));
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("untouched", Verdict.STARTS, "", h -> {}),
        new Case(
            "a digit edited in a middle record's field",
            Verdict.REFUSED,
            "records do not form one chain",
            h -> h.editLine(h.nth("Debited", 1), FileJournalTamperingTest::raiseEstimate)),
        new Case(
            "a hex digit edited in a middle record's signature",
            Verdict.REFUSED,
            "records do not form one chain",
            h ->
                h.editLine(
                    h.nth("Authorised", 1), line -> flipHex(line, after(line, "signature") + 10))),
        new Case(
            "a hex digit edited in a middle record's prev",
            Verdict.REFUSED,
            "records do not form one chain",
            h -> h.editLine(h.nth("Sealed", 1), line -> flipHex(line, after(line, "prev") + 5))),
        new Case(
            "a middle record deleted",
            Verdict.REFUSED,
            "records do not form one chain",
            h ->
                h.editLines(
                    l -> {
                      l.remove(h.nth("Debited", 1));
                    })),
        new Case(
            "two records swapped",
            Verdict.REFUSED,
            "records do not form one chain",
            h ->
                h.editLines(
                    l -> {
                      int i = h.nth("Debited", 1);
                      String d = l.get(i);
                      l.set(i, l.get(i + 1));
                      l.set(i + 1, d);
                    })),
        new Case(
            "a record duplicated",
            Verdict.REFUSED,
            "records do not form one chain",
            h ->
                h.editLines(
                    l -> {
                      int i = h.nth("Sealed", 1);
                      l.add(i + 1, l.get(i));
                    })),
        new Case(
            "a record of another journal of the same key put in its place",
            Verdict.REFUSED,
            "records do not form one chain",
            h -> {
              History o = other(h, h.key, 3);
              List<String> l = h.lines();
              int i = h.nth("Sealed", 1);
              l.set(i, o.lines().get(i));
              h.write(l);
            }),
        new Case(
            "a record of another steward's journal appended",
            Verdict.REFUSED,
            "",
            h ->
                h.editLines(
                    l -> {
                      History o = other(h, SigningKey.generate(), 5);
                      l.add(o.lines().get(l.size()));
                    })),
        new Case(
            "a record of another journal of the same key appended",
            Verdict.REFUSED,
            "",
            h ->
                h.editLines(
                    l -> {
                      History o = other(h, h.key, 5);
                      l.add(o.lines().get(l.size()));
                    })),
        new Case(
            "cut at a record boundary behind its latest snapshot",
            Verdict.REFUSED,
            "AHEAD_OF_JOURNAL",
            h -> h.write(h.lines().subList(0, h.nth("Authorised", 2)))),
        new Case(
            "cut at a record boundary, the snapshots covering the cut records removed (§60.8)",
            Verdict.STARTS,
            "",
            h -> {
              List<String> l = h.lines();
              h.write(l.subList(0, h.nth("Authorised", 2)));
              Files.delete(h.latestSnapshot());
            }),
        new Case(
            "the latest snapshot's last byte edited",
            Verdict.REFUSED,
            "BAD_SIGNATURE",
            h -> h.editLatestSnapshot(b -> flipBit(b, b.length - 1))),
        new Case(
            "a byte in the latest snapshot's body edited",
            Verdict.REFUSED,
            "",
            h -> h.editLatestSnapshot(b -> flipBit(b, b.length - 80))),
        new Case(
            "the latest snapshot cut in half",
            Verdict.REFUSED,
            "MALFORMED",
            h -> h.editLatestSnapshot(b -> java.util.Arrays.copyOf(b, b.length / 2))),
        new Case(
            "the latest snapshot emptied",
            Verdict.REFUSED,
            "MALFORMED",
            h -> h.editLatestSnapshot(b -> new byte[0])),
        new Case(
            "the latest snapshot's bytes replaced by as many random ones",
            Verdict.REFUSED,
            "MALFORMED",
            h ->
                h.editLatestSnapshot(
                    b -> {
                      byte[] random = new byte[b.length];
                      new java.util.Random(43).nextBytes(random);
                      return random;
                    })),
        // Past the size limit (SPEC.md §60.8, "Size"): read by its header alone, never whole. A
        // whole snapshot grown so starts, replaying the journal; zeros are no header.
        new Case(
            "the latest snapshot grown past the size limit (sparse zeros appended)",
            Verdict.STARTS,
            "",
            h -> growPastTheSizeLimit(h.latestSnapshot())),
        new Case(
            "the latest snapshot made sparse zeros past the size limit",
            Verdict.REFUSED,
            "MALFORMED",
            h -> {
              h.editLatestSnapshot(b -> new byte[0]);
              growPastTheSizeLimit(h.latestSnapshot());
            }),
        new Case(
            "the latest snapshot replaced by another journal's of the same key",
            Verdict.REFUSED,
            "",
            h -> {
              History o = other(h, h.key, 5);
              h.replaceLatestSnapshot(o.latestSnapshot());
            }),
        new Case(
            "a longer journal's snapshot of the same key put in the folder",
            Verdict.REFUSED,
            "AHEAD_OF_JOURNAL",
            h -> {
              History o = other(h, h.key, 5);
              Files.copy(o.latestSnapshot(), h.snapshots.resolve(o.latestSnapshot().getFileName()));
            }),
        new Case(
            "the latest snapshot replaced by another steward's",
            Verdict.REFUSED,
            "OTHER_STEWARD",
            h -> {
              History o = other(h, SigningKey.generate(), 3);
              h.replaceLatestSnapshot(o.latestSnapshot());
            }),
        new Case(
            "the latest snapshot removed: the older one is put back",
            Verdict.STARTS,
            "",
            h -> Files.delete(h.latestSnapshot())),
        new Case(
            "the latest snapshot replaced by the older one",
            Verdict.STARTS,
            "",
            h -> h.replaceLatestSnapshot(h.snapshotFiles().getFirst())),
        new Case(
            "the older snapshot renamed to a later count",
            Verdict.STARTS,
            "",
            h -> {
              Path older = h.snapshotFiles().getFirst();
              Files.move(older, h.snapshots.resolve("%020d.snapshot".formatted(999)));
            }),
        new Case(
            "the latest snapshot renamed to a lower count",
            Verdict.STARTS,
            "",
            h -> {
              Files.move(h.latestSnapshot(), h.snapshots.resolve("%020d.snapshot".formatted(0)));
            }),
        new Case("the snapshot folder emptied", Verdict.STARTS, "", History::removeSnapshots),
        new Case(
            "a middle record's seq lowered",
            Verdict.REFUSED,
            "records do not form one chain",
            h -> lowerSeq(h, h.nth("Debited", 1))),
        new Case(
            "the last record's seq lowered",
            Verdict.REFUSED,
            "",
            h -> lowerSeq(h, h.lines().size() - 1)),
        new Case(
            "the last record's seq lowered, no snapshot",
            Verdict.REFUSED,
            "",
            withoutSnapshots(h -> lowerSeq(h, h.lines().size() - 1))),
        new Case(
            "CRLF line endings",
            Verdict.REFUSED,
            "",
            h ->
                Files.writeString(
                    h.journal, String.join("\r\n", h.lines()) + "\r\n", StandardCharsets.UTF_8)),
        new Case(
            "a CR before the last LF",
            Verdict.REFUSED,
            "",
            FileJournalTamperingTest::crBeforeTheLastLf),
        new Case(
            "a CR before the last LF, no snapshot",
            Verdict.REFUSED,
            "",
            withoutSnapshots(FileJournalTamperingTest::crBeforeTheLastLf)),
        new Case(
            "a NUL in a middle record",
            Verdict.REFUSED,
            "not JSON",
            h ->
                h.editLine(
                    h.nth("Debited", 1),
                    line -> line.substring(0, 20) + "\0" + line.substring(20))),
        new Case(
            "a NUL in the last record, no snapshot",
            Verdict.REFUSED,
            "",
            withoutSnapshots(
                h ->
                    h.editLines(
                        l -> {
                          int i = l.size() - 1;
                          l.set(i, l.get(i).substring(0, 20) + "\0" + l.get(i).substring(21));
                        }))),
        new Case(
            "an empty line appended",
            Verdict.REFUSED,
            "",
            h -> Files.writeString(h.journal, "\n", java.nio.file.StandardOpenOption.APPEND)),
        new Case(
            "an empty line appended, no snapshot",
            Verdict.REFUSED,
            "",
            h -> {
              Files.writeString(h.journal, "\n", java.nio.file.StandardOpenOption.APPEND);
              h.removeSnapshots();
            }),
        new Case(
            "an Authorised record with a forged signature appended, chained",
            Verdict.REFUSED,
            "bad-signature",
            h ->
                h.editLines(
                    l -> {
                      String a = l.get(h.nth("Authorised", 2));
                      String entry = a.substring(a.indexOf("\"entry\":"));
                      // A nonce never presented, under the signature of another presentation.
                      entry = flipHex(entry, after(entry, "nonce") + 3);
                      l.add(
                          "{\"seq\":" + l.size() + ",\"prev\":\"" + "0".repeat(64) + "\"," + entry);
                      rehash(l, l.size() - 1);
                    })),
        new Case(
            "a debit lowered, every later prev recomputed",
            Verdict.REFUSED,
            "",
            FileJournalTamperingTest::lowerADebitAndRehash),
        new Case(
            "a debit lowered, every later prev recomputed, no snapshot",
            Verdict.REFUSED,
            "signed receipt",
            withoutSnapshots(FileJournalTamperingTest::lowerADebitAndRehash)),
        new Case(
            "the last serve cut from under the closing checkpoint, renumbered and re-hashed,"
                + " no snapshot",
            Verdict.REFUSED,
            "checkpoint",
            withoutSnapshots(FileJournalTamperingTest::cutTheLastServe)),
        new Case(
            "the last serve cut from under the closing checkpoint, renumbered and re-hashed",
            Verdict.REFUSED,
            "",
            FileJournalTamperingTest::cutTheLastServe),
        new Case(
            "the final LF removed",
            Verdict.REFUSED,
            "ahead_of_journal",
            h -> {
              byte[] b = Files.readAllBytes(h.journal);
              Files.write(h.journal, java.util.Arrays.copyOf(b, b.length - 1));
            }),
        new Case(
            "the snapshot folder replaced by a file",
            Verdict.REFUSED,
            "",
            h -> {
              h.removeSnapshots();
              try (Stream<Path> s = Files.list(h.snapshots)) {
                for (Path p : s.toList()) {
                  Files.delete(p);
                }
              }
              Files.delete(h.snapshots);
              Files.writeString(h.snapshots, "not a folder");
            }),
        new Case(
            "a folder named as a later snapshot",
            Verdict.REFUSED,
            "",
            h -> Files.createDirectory(h.snapshots.resolve("%020d.snapshot".formatted(999)))),
        new Case(
            "archived, then served on: untouched",
            Verdict.STARTS,
            "",
            h -> h.archive().serve(2, "later")),
        new Case(
            "archived, then served on: the segments removed",
            Verdict.STARTS,
            "",
            h -> {
              h.archive().serve(2, "later");
              h.removeSegments();
            }),
        new Case(
            "archived, then served on: a record the snapshot covers edited in the live file",
            Verdict.REFUSED,
            "",
            h -> {
              h.archive().serve(2, "later");
              h.editLine(h.nth("Debited", 0), FileJournalTamperingTest::raiseEstimate);
            }),
        new Case(
            "archived, then served on: a record the snapshot covers edited in the live file,"
                + " the segments removed",
            Verdict.REFUSED,
            "",
            h -> {
              h.archive().serve(2, "later");
              h.removeSegments();
              h.editLine(h.nth("Debited", 0), FileJournalTamperingTest::raiseEstimate);
            }),
        new Case(
            "archived, then served on: a record edited in a segment",
            Verdict.REFUSED,
            "",
            h -> {
              h.archive().serve(2, "later");
              Path seg;
              try (Stream<Path> s = Files.list(h.segments())) {
                seg = s.findFirst().orElseThrow();
              }
              List<String> l = new ArrayList<>(Files.readAllLines(seg));
              int i = 5;
              l.set(i, raiseEstimate(l.get(i)));
              Files.writeString(seg, String.join("\n", l) + "\n");
            }),
        new Case(
            "archived, then served on: the live file cut behind the snapshot, segments removed",
            Verdict.REFUSED,
            "ahead_of_journal",
            h -> {
              h.archive().serve(2, "later");
              h.removeSegments();
              List<String> l = h.lines();
              h.write(l.subList(0, l.size() - 2));
            }),
        new Case(
            "record 0's first bytes overwritten",
            Verdict.REFUSED,
            "restore it from a copy",
            h -> h.editLine(0, line -> "XXXX" + line.substring(4))),
        new Case(
            "archived, then served on: the live file's first bytes overwritten",
            Verdict.REFUSED,
            "restore it from a copy",
            h -> {
              h.archive().serve(2, "later");
              h.editLine(0, line -> "XXXX" + line.substring(4));
            }),
        new Case(
            "archived, then served on: the live file's first bytes overwritten, segments removed",
            Verdict.REFUSED,
            "restore it from a copy",
            h -> {
              h.archive().serve(2, "later");
              h.removeSegments();
              h.editLine(0, line -> "XXXX" + line.substring(4));
            }),
        new Case(
            "zeros appended (a torn append a power loss left)",
            Verdict.STARTS,
            "",
            h -> Files.write(h.journal, new byte[64], java.nio.file.StandardOpenOption.APPEND)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void anEditOfAStoppedStewardsFiles_isJudgedAlikeByVerifyAndByAStart(Case c) throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    c.tamper().apply(h);
    Run verify = mesh("journal", "verify", h.journal.toString());
    Run start = serveUntilListening(h);
    boolean started = start.err().contains("cannot listen");
    String report = report(c, verify, start);
    assertThat(verify.code() == 0).as("verify and start agree: " + report).isEqualTo(started);
    assertThat(started).as("as the SPEC says: " + report).isEqualTo(c.verdict() == Verdict.STARTS);
    if (!c.says().isEmpty()) {
      assertThat(verify.err()).as(report).containsIgnoringCase(c.says());
      assertThat(start.err()).as(report).containsIgnoringCase(c.says());
    }
  }

  /** What verify and a start said of case {@code c}, printed for the run's report and returned. */
  static String report(Object c, Run verify, Run start) {
    String report =
        "%s%n  verify: %d %s%s%n  start: %d %s"
            .formatted(
                c,
                verify.code(),
                verify.out().strip(),
                verify.err().strip(),
                start.code(),
                start.err().strip());
    System.out.println(report);
    return report;
  }

  /**
   * {@code mesh serve} on the history, stopped where it would listen ({@link
   * CliErrorsTest#serveUntilListening}): a start that replays fails to listen.
   */
  static Run serveUntilListening(History h) {
    return CliErrorsTest.serveUntilListening(h.journal, "--key", h.keyFile.toString());
  }
}
