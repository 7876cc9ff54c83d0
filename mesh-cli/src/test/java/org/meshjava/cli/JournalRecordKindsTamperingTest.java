package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.FileJournalTamperingTest.Verdict;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.steward.Steward;

/**
 * The file journal's tampering round 4 (SPEC.md §60.2, §60.3, §60.8): one history that holds every
 * kind of record in its live file (a suspension on a later checkpoint, its lifting, a revocation,
 * 38 granted serves, snapshots, one archive), edited as a disk or someone with the files could: a
 * bit flipped in each kind of record, lines cut, removed, swapped, repeated or appended, snapshots
 * and segments exchanged for older copies or links. Each edit goes through {@code mesh journal
 * verify} (with and without {@code --snapshots} naming the folder), and a {@code mesh serve} start,
 * which must agree with each other and with the SPEC; where they start, the spend per grant that
 * {@code mesh journal inspect} reads is the untouched history's (nothing lost, nothing spendable
 * twice). Slow: about 40 cases of three commands each on a history of 93 records.
 */
@Tag("slow")
class JournalRecordKindsTamperingTest {
  @TempDir static Path shared;

  /** The untouched history every case copies, and its spend as {@code inspect} reads it. */
  static Path template;

  static SigningKey key;
  static String untouchedSpend;

  /** An edit of a copy of the history. */
  @FunctionalInterface
  interface Edit {
    void apply(History h) throws Exception;
  }

  /**
   * An edit, what the SPEC says a start makes of it, and what verify does where the SPEC says it
   * judges otherwise (verify claims no snapshot folder, so a folder's {@code journal.path} that
   * turns a start away is not its concern, §60.8).
   */
  record Case(String name, Verdict verdict, Verdict verify, Edit edit) {
    Case(String name, Verdict verdict, Edit edit) {
      this(name, verdict, verdict, edit);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** What a steward session does with its steward, its caller and the caller's grant. */
  @FunctionalInterface
  interface Session {
    void run(Steward s, SigningKey caller, GrantChain chain) throws Exception;
  }

  @BeforeAll
  static void history() throws Exception {
    template = shared.resolve("template");
    Files.createDirectories(template);
    History h = new History(template, SigningKey.generate(), "steward").serve(10, "first");
    key = h.key;
    h.archive();
    // A copy of the journal and its snapshots, then three serves and the checkpoint after them,
    // then the copy put back: shown that checkpoint, the steward journals a suspension (§60.4).
    Path backup = template.resolve("backup");
    Files.createDirectories(backup);
    Files.copy(h.journal, backup.resolve("journal"));
    copyTree(h.snapshots, backup.resolve("snapshots"));
    SignedNote[] later = new SignedNote[1];
    session(
        h,
        (s, caller, chain) -> {
          serve(s, caller, chain, "rolled back", 3);
          later[0] = s.checkpoint().orElseThrow();
        });
    Files.copy(backup.resolve("journal"), h.journal, StandardCopyOption.REPLACE_EXISTING);
    h.removeSnapshots();
    copyTree(backup.resolve("snapshots"), h.snapshots);
    session(
        h,
        (s, caller, chain) -> {
          serve(s, caller, chain, "second", 5);
          s.witnessCheckpoint(later[0]);
        });
    Run resumed = mesh("journal", "resume-grants", h.journal.toString(), "--note", "accepted");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    session(
        h,
        (s, caller, chain) -> {
          serve(s, caller, chain, "third", 5);
          SigningKey issuer = SigningKey.generate();
          Instant now = Instant.now();
          GrantChain other =
              Jcp.issueRoot(
                  issuer,
                  Jcp.identity(h.key),
                  1_000_000,
                  now.minusSeconds(60),
                  now.plusSeconds(3600));
          s.revoke(Revocation.sign(issuer, other, now.minusSeconds(10)));
          serve(s, caller, chain, "fourth", 5);
          s.snapshot();
          serve(s, caller, chain, "fifth", 3);
        });
    Run inspect = mesh("journal", "inspect", h.journal.toString());
    assertThat(inspect.code()).as(inspect.err()).isZero();
    untouchedSpend = spend(inspect.out());
  }

  /** A steward on the history's journal and snapshots for one session, as History serves. */
  static void session(History h, Session body) throws Exception {
    SigningKey caller = SigningKey.generate();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller, Jcp.identity(h.key), 10_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    Steward.Builder b =
        Steward.builder(h.key)
            .journal(FileJournal.open(h.journal))
            .meter(new EstimatorMeter())
            .backend(ReferenceSteward.engine())
            .snapshots(FileSnapshotStore.beside(h.journal))
            .snapshotEvery(0);
    try (Steward s = b.build()) {
      body.run(s, caller, chain);
    }
  }

  static void serve(Steward s, SigningKey caller, GrantChain chain, String prompt, int n)
      throws Exception {
    for (int i = 0; i < n; i++) {
      var req = ReferenceSteward.request(prompt + " " + i);
      s.serve(req, ReferenceSteward.payload(req), Jcp.present(caller, chain, req));
    }
  }

  static void copyTree(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** What {@code inspect} printed from its spend per grant on. */
  static String spend(String inspect) {
    return inspect.substring(inspect.indexOf("spend per grant"));
  }

  /** The line of the live file that holds the first record of {@code type}. */
  static int first(List<String> lines, String type) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("\"entry\":{\"type\":\"" + type + "\"")) {
        return i;
      }
    }
    throw new AssertionError("no " + type + " record in the live file");
  }

  /** The byte offset of line {@code line} in {@code all}. */
  static int offsetOfLine(byte[] all, int line) {
    int off = 0;
    for (int k = 0; k < line; k++) {
      while (all[off] != '\n') {
        off++;
      }
      off++;
    }
    return off;
  }

  /** {@code entry} as the record after the last one, chained to it (signed by nothing). */
  static String appended(List<String> l, String entry) {
    String last = l.getLast();
    long seq = Long.parseLong(last.substring("{\"seq\":".length(), last.indexOf(',')));
    String prev = ContentId.ofBytes(last.getBytes(StandardCharsets.UTF_8)).hex();
    return "{\"seq\":" + (seq + 1) + ",\"prev\":\"" + prev + "\",\"entry\":" + entry + "}";
  }

  /** The entry object of a record line. */
  static String entryOf(String line) {
    return line.substring(line.indexOf("\"entry\":") + "\"entry\":".length(), line.length() - 1);
  }

  static void cut(Path file, int less) throws Exception {
    byte[] b = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(b, b.length - less));
  }

  static Path firstSegment(History h) throws Exception {
    try (Stream<Path> s = Files.list(h.segments())) {
      return s.sorted().findFirst().orElseThrow();
    }
  }

  static Stream<Case> cases() throws Exception {
    List<String> lines = Files.readAllLines(template.resolve("steward.journal"));
    List<Case> out = new ArrayList<>();
    out.add(new Case("untouched", Verdict.STARTS, h -> {}));
    for (String type :
        List.of(
            "Checkpoint",
            "Chain",
            "Authorised",
            "Debited",
            "Sealed",
            "Suspended",
            "Resumed",
            "Revoked")) {
      int line = first(lines, type);
      int length = lines.get(line).getBytes(StandardCharsets.UTF_8).length;
      // In the seq, the entry's keys, the hex or figures in the middle, and near the end.
      for (int tenth : new int[] {0, 2, 5, 9}) {
        int at = length * tenth / 10 + 1;
        int bit = tenth % 7;
        out.add(
            new Case(
                "a bit flipped in the " + type + " record, byte " + at + " bit " + bit,
                Verdict.REFUSED,
                h -> {
                  byte[] all = Files.readAllBytes(h.journal);
                  all[offsetOfLine(all, line) + at] ^= (byte) (1 << bit);
                  Files.write(h.journal, all);
                }));
      }
    }
    int last = lines.size() - 1;
    int lastLength = lines.get(last).getBytes(StandardCharsets.UTF_8).length + 1;
    for (int less : new int[] {1, 2, lastLength / 2, lastLength - 1}) {
      out.add(
          new Case(
              "the closing checkpoint cut by " + less + " bytes",
              Verdict.REFUSED,
              h -> cut(h.journal, less)));
    }
    int sealedLength = lines.get(last - 1).getBytes(StandardCharsets.UTF_8).length + 1;
    out.add(
        new Case(
            "the closing checkpoint removed and the last Sealed record cut in half",
            Verdict.REFUSED,
            h -> cut(h.journal, lastLength + sealedLength / 2)));
    out.add(
        new Case("a middle line removed", Verdict.REFUSED, h -> h.editLines(l -> l.remove(30))));
    out.add(
        new Case(
            "the last line removed",
            Verdict.REFUSED,
            h -> h.editLines(l -> l.remove(l.size() - 1))));
    out.add(
        new Case(
            "two middle lines swapped",
            Verdict.REFUSED,
            h -> h.editLines(l -> Collections.swap(l, 40, 41))));
    out.add(
        new Case(
            "the last two lines swapped",
            Verdict.REFUSED,
            h -> h.editLines(l -> Collections.swap(l, l.size() - 1, l.size() - 2))));
    out.add(
        new Case(
            "a middle line repeated",
            Verdict.REFUSED,
            h -> h.editLines(l -> l.add(31, l.get(30)))));
    out.add(
        new Case(
            "the last line repeated", Verdict.REFUSED, h -> h.editLines(l -> l.add(l.getLast()))));
    out.add(
        new Case(
            "a Resumed record appended, chained, with no suspension in force",
            Verdict.REFUSED,
            h -> h.editLines(l -> l.add(appended(l, "{\"type\":\"Resumed\",\"note\":\"x\"}")))));
    out.add(
        new Case(
            "the closing Checkpoint record appended again, chained",
            Verdict.REFUSED,
            h -> h.editLines(l -> l.add(appended(l, entryOf(l.getLast()))))));
    out.add(
        new Case(
            "the last Debited record appended again, chained",
            Verdict.REFUSED,
            h -> h.editLines(l -> l.add(appended(l, entryOf(l.get(l.size() - 3)))))));
    // Records that need no signature of the steward's to be written, or carry a signature of
    // their own: appended, they say again what was said (a chain, a revocation) or suspend grants,
    // and no spend is lost by them.
    for (String type : List.of("Chain", "Revoked", "Suspended")) {
      out.add(
          new Case(
              "the " + type + " record appended again, chained",
              Verdict.STARTS,
              h -> h.editLines(l -> l.add(appended(l, entryOf(l.get(first(l, type))))))));
    }
    out.add(
        new Case(
            "the live file replaced by its copy from before the suspension",
            Verdict.REFUSED,
            h ->
                Files.copy(
                    h.dir.resolve("backup/journal"),
                    h.journal,
                    StandardCopyOption.REPLACE_EXISTING)));
    out.add(
        new Case(
            "the live file replaced by a hard link to the segment",
            Verdict.REFUSED,
            h -> {
              Files.delete(h.journal);
              Files.createLink(h.journal, firstSegment(h));
            }));
    out.add(
        new Case(
            "the segment replaced by a hard link to the live file",
            Verdict.REFUSED,
            h -> {
              Files.delete(firstSegment(h));
              Files.createLink(firstSegment(h.segments()), h.journal);
            }));
    out.add(
        new Case(
            "the segment replaced by a symbolic link to the live file",
            Verdict.REFUSED,
            h -> {
              Path seg = firstSegment(h);
              Files.delete(seg);
              Files.createSymbolicLink(seg, h.journal);
            }));
    out.add(
        new Case(
            "the latest snapshot removed (the older one stands)",
            Verdict.STARTS,
            h -> Files.delete(h.latestSnapshot())));
    out.add(
        new Case(
            "the snapshot folder put back from before the suspension (older, still matching)",
            Verdict.STARTS,
            h -> {
              h.removeSnapshots();
              copyTree(h.dir.resolve("backup/snapshots"), h.snapshots);
              recordAsItsJournal(h);
            }));
    out.add(
        new Case(
            "the journal and its snapshot folder copied while the original stays",
            Verdict.REFUSED,
            Verdict.STARTS,
            h ->
                Files.writeString(
                    h.snapshots.resolve("journal.path"),
                    template.resolve("steward.journal").toRealPath() + "\n",
                    StandardCharsets.UTF_8)));
    for (boolean symbolic : new boolean[] {true, false}) {
      out.add(
          new Case(
              "the segment moved out and a "
                  + (symbolic ? "symbolic" : "hard")
                  + " link to it put"
                  + " in its place",
              Verdict.STARTS,
              h -> {
                Path seg = firstSegment(h);
                Path moved = h.dir.resolve("moved.jsonl");
                Files.move(seg, moved);
                if (symbolic) {
                  Files.createSymbolicLink(seg, moved);
                } else {
                  Files.createLink(seg, moved);
                }
              }));
    }
    out.add(
        new Case(
            "the segment removed (the snapshot covers its records, §60.8)",
            Verdict.STARTS,
            h -> Files.delete(firstSegment(h))));
    // No archive leaves a whole copy of the live file as a segment: an archive keeps the last
    // record in the live file, and under the marker names a segment only once the live file is cut
    // past it. The files are those of a live file replaced by a copy of the last segment, whose
    // later
    // records are lost (SPEC 60.8, "The live file follows its segments").
    out.add(
        new Case(
            "a copy of the whole live file named as a segment of its first record",
            Verdict.REFUSED,
            h ->
                Files.copy(
                    h.journal,
                    h.segments().resolve("%020d.jsonl".formatted(firstSeq(h.journal))))));
    // What an archive killed midway leaves (SPEC 60.8): the live file's first lines copied to a
    // pending segment named for its first record, before the cut (the opening removes the copy)
    // and after it, the live file then beginning past them (the opening names the segment).
    for (boolean cut : new boolean[] {false, true}) {
      out.add(
          new Case(
              "the live file's first lines in a pending segment, left "
                  + (cut ? "after" : "before")
                  + " the cut",
              Verdict.STARTS,
              h -> {
                byte[] live = Files.readAllBytes(h.journal);
                int at = 0;
                for (int seen = 0; seen < 3; at++) {
                  if (live[at] == '\n') {
                    seen++;
                  }
                }
                Files.write(
                    h.segments().resolve("%020d.jsonl.pending".formatted(firstSeq(h.journal))),
                    java.util.Arrays.copyOf(live, at));
                if (cut) {
                  Files.write(h.journal, java.util.Arrays.copyOfRange(live, at, live.length));
                }
              }));
    }
    return out.stream();
  }

  /**
   * Makes the copied snapshot folder record the copy's journal as its own, as a folder moved with
   * its journal would be re-recorded (SPEC 60.8, {@code journal.path}): else every case would be
   * refused as a copy of the template's journal.
   */
  static void recordAsItsJournal(History h) throws Exception {
    Files.writeString(
        h.snapshots.resolve("journal.path"), h.journal.toRealPath() + "\n", StandardCharsets.UTF_8);
  }

  /** The sequence of the live file's first record. */
  static long firstSeq(Path journal) throws Exception {
    return FileJournal.firstSequence(journal);
  }

  /** The first segment in {@code folder} (for a path computed before it was removed). */
  static Path firstSegment(Path folder) {
    return folder.resolve("%020d.jsonl".formatted(0));
  }

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void anEditOfAnyRecordKind_isJudgedAlikeByVerifyAndAStart_andLosesNoSpend(Case c)
      throws Exception {
    Path copy = dir.resolve("copy");
    copyTree(template, copy);
    Files.delete(copy.resolve("steward.key"));
    History h = new History(copy, key, "steward");
    recordAsItsJournal(h);
    c.edit().apply(h);
    Run verify = mesh("journal", "verify", h.journal.toString());
    Run named =
        mesh("journal", "verify", h.journal.toString(), "--snapshots", h.snapshots.toString());
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    boolean started = start.err().contains("cannot listen");
    String report = FileJournalTamperingTest.report(c, verify, start);
    assertThat(named.code())
        .as("--snapshots naming the folder: " + named.err() + report)
        .isEqualTo(verify.code());
    assertThat(started).as("as the SPEC says: " + report).isEqualTo(c.verdict() == Verdict.STARTS);
    assertThat(verify.code() == 0)
        .as("verify as the SPEC says (with a start unless it says why not): " + report)
        .isEqualTo(c.verify() == Verdict.STARTS);
    if (started) {
      Run inspect = mesh("journal", "inspect", h.journal.toString());
      if (inspect.code() == 0) {
        assertThat(spend(inspect.out())).as("spend after: " + report).isEqualTo(untouchedSpend);
      } else {
        // Only where the segment is gone: inspect reads the whole history.
        assertThat(inspect.err()).as(report).containsIgnoringCase("archived");
      }
    }
  }
}
