package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;

/**
 * {@code mesh journal archive} and {@code verify} over snapshots and segments (SPEC.md §60.8): the
 * whole history is checked while the segments are present; without them, the snapshot and the
 * records after it, and the verdict says what was not checked.
 */
class JournalArchiveCommandTest {
  @TempDir Path tmp;

  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());

  private Steward steward(Path journal, boolean fresh) throws Exception {
    return steward(stewardKey, journal, fresh);
  }

  private Steward steward(SigningKey key, Path journal, boolean fresh) throws Exception {
    Steward.Builder b =
        Steward.builder(key)
            .meter(new EstimatorMeter())
            .clock(InstantSource.fixed(now))
            .journal(FileJournal.open(journal))
            .snapshots(FileSnapshotStore.beside(journal))
            .snapshotEvery(0)
            .backend(ReferenceEngine.builder().name("ref").build());
    if (fresh) {
      b.chainHead(ChainHead.GENESIS);
    }
    return b.build();
  }

  private void serve(Steward s, GrantChain chain, String prompt) throws Exception {
    byte[] b = prompt.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ServeRequest req =
        ServeRequest.generation(
            ContentId.ofBytes(b), b.length, new ServeBounds(4, Fidelity.F1, 100_000));
    s.serve(
        req, TokenSequence.of(new int[(int) req.promptTokens()]), Jcp.present(caller, chain, req));
  }

  /**
   * An archive of a journal a steward holds is refused, naming who may hold it and what to do: the
   * journal's own LOCKED message could only say "another steward process", and an operator with an
   * import or a resume-grants running was left to guess.
   */
  @Test
  void archive_ofAJournalAStewardHolds_isRefused_sayingToStopIt() throws Exception {
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, chain, "one");
      s.snapshot();
      serve(s, chain, "two");
      assertArchiveRefusedAsHeld(journal);
    }
  }

  /** Runs {@code mesh journal archive} on a held journal: refused as held, nothing moved. */
  private static void assertArchiveRefusedAsHeld(Path journal) throws Exception {
    byte[] before = Files.readAllBytes(journal);
    Run held = mesh("journal", "archive", journal.toString());
    assertThat(held.code()).isEqualTo(1);
    assertThat(held.err())
        .contains("held by")
        .contains("a running mesh serve")
        .contains("stop it before archiving")
        .doesNotContain("no snapshot");
    assertThat(Files.readAllBytes(journal)).isEqualTo(before);
  }

  /**
   * Regression: before any snapshot was written, an archive of a held journal answered "no
   * snapshot", so the operator was not told that a steward held it; the lock is now taken first.
   */
  @Test
  void archive_ofAHeldJournalWithNoSnapshotYet_isRefusedAsHeld() throws Exception {
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, chain, "one");
      assertArchiveRefusedAsHeld(journal);
    }
    // Stopped, and its closing snapshot moved away: now "no snapshot" is the answer.
    Path store = FileSnapshotStore.beside(journal).directory();
    Files.move(store, tmp.resolve("snapshots-elsewhere"));
    Run free = mesh("journal", "archive", journal.toString());
    assertThat(free.code()).isEqualTo(1);
    assertThat(free.err()).contains("no snapshot");
  }

  @Test
  void archive_thenVerify_withAndWithoutSegments_andRestartFromTheSnapshot() throws Exception {
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      for (int i = 0; i < 6; i++) {
        serve(s, chain, "before " + i);
      }
      s.snapshot();
      serve(s, chain, "after");
    } // the closing snapshot covers the whole journal
    Run whole = mesh("journal", "verify", journal.toString());
    assertThat(whole.code()).as(whole.err()).isZero();
    assertThat(whole.out()).contains("form one chain and replay");

    Run archived = mesh("journal", "archive", journal.toString());
    assertThat(archived.code()).as(archived.err()).isZero();
    assertThat(archived.out()).contains("archived into");
    assertThat(FileJournal.firstSequence(journal)).isPositive();

    Run withSegments = mesh("journal", "verify", journal.toString());
    assertThat(withSegments.code()).as(withSegments.err()).isZero();
    assertThat(withSegments.out())
        .contains("form one chain and replay")
        .doesNotContain("not checked");

    // Without the segments: the snapshot and the tail only, and it says so.
    Path segments = JournalSegments.directory(journal);
    Path away = tmp.resolve("elsewhere");
    Files.move(segments, away);
    Run tailOnly = mesh("journal", "verify", journal.toString());
    assertThat(tailOnly.code()).as(tailOnly.err()).isZero();
    // Regression: the archived range was given as the snapshot's (one record too many here, the
    // closing checkpoint's record being still in the live file).
    long first = FileJournal.firstSequence(journal);
    assertThat(tailOnly.out())
        .contains("no records follow the snapshot")
        .contains("were not checked")
        .contains("records 0 to " + (first - 1) + " are archived without their segments");

    // A steward starts from the snapshot and needs nothing archived.
    try (Steward s = steward(journal, false)) {
      assertThat(s.head().nextSequence()).isEqualTo(7);
      serve(s, chain, "after the archive");
    }

    // The segments back, one record edited: the full verify refuses it.
    Files.move(away, segments);
    Path seg;
    try (var files = Files.list(segments)) {
      seg = files.findFirst().orElseThrow();
    }
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(seg));
    lines.set(2, lines.get(2).replaceFirst("\"debited_uj\":(\\d)", "\"debited_uj\":9$1"));
    Files.write(seg, lines);
    Run bad = mesh("journal", "verify", journal.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("journal record 3");
  }

  @Test
  void archivedJournal_isInspectedAndExportedWhole_fromItsSegments() throws Exception {
    // inspect, export and import read through the same reader; it read the live file alone, whose
    // first record after an archive is not record 0, so each refused an archived journal outright.
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      for (int i = 0; i < 4; i++) {
        serve(s, chain, "before " + i);
      }
    } // the closing snapshot covers the whole journal
    List<String> before = Files.readAllLines(journal);
    Run inspectedBefore = mesh("journal", "inspect", journal.toString());
    assertThat(mesh("journal", "archive", journal.toString()).code()).isZero();
    assertThat(FileJournal.firstSequence(journal)).isPositive();

    Run inspected = mesh("journal", "inspect", journal.toString());
    assertThat(inspected.code()).as(inspected.err()).isZero();
    assertThat(inspected.out()).isEqualTo(inspectedBefore.out()).contains("#0 ");

    Path copy = tmp.resolve("copy.journal");
    Run exported = mesh("journal", "export", journal.toString(), "--out", copy.toString());
    assertThat(exported.code()).as(exported.err()).isZero();
    assertThat(Files.readAllLines(copy)).isEqualTo(before);

    // Without its segments the records before the live file cannot be read, and it says so.
    Files.move(JournalSegments.directory(journal), tmp.resolve("elsewhere"));
    Run tailOnly = mesh("journal", "inspect", journal.toString());
    assertThat(tailOnly.code()).isEqualTo(1);
    assertThat(tailOnly.err()).contains("were archived");
  }

  /** A root grant from the caller to the steward, live for the next hour. */
  private GrantChain hourGrant() throws Exception {
    return Jcp.issueRoot(
        caller, Jcp.identity(stewardKey), 10_000_000, now.minusSeconds(60), now.plusSeconds(3600));
  }

  @Test
  void archivedJournal_grantedServeStrippedAndRehashedInTheTail_isRefusedByTheJournalSeal()
      throws Exception {
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, chain, "archived");
    }
    Run archived = mesh("journal", "archive", journal.toString());
    assertThat(archived.code()).as(archived.err()).isZero();
    try (Steward s = steward(journal, false)) {
      serve(s, chain, "in the tail");
    } // a closing checkpoint, then a closing snapshot
    Run ok = mesh("journal", "verify", journal.toString());
    assertThat(ok.code()).as(ok.err()).isZero();

    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(journal));
    int debited = -1;
    int sealed = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (debited < 0 && lines.get(i).contains("\"type\":\"Debited\"")) {
        debited = i;
      }
      if (sealed < 0 && lines.get(i).contains("\"type\":\"Sealed\"")) {
        sealed = i;
      }
    }
    assertThat(debited).isNotNegative();
    assertThat(lines.get(sealed)).contains("\"envelope\":");
    lines.set(
        debited, lines.get(debited).replaceFirst("\"debited_uj\":[0-9]+", "\"debited_uj\":1"));
    lines.set(
        sealed,
        lines
            .get(sealed)
            .replaceFirst(",\"authorised\":[0-9]+", "")
            .replaceFirst(",\"envelope\":\"[0-9a-f]+\"", ""));
    java.util.regex.Pattern prevKey = java.util.regex.Pattern.compile("\"prev\":\"[0-9a-f]{64}\"");
    for (int i = debited + 1; i < lines.size(); i++) {
      String prev =
          ContentId.ofBytes(lines.get(i - 1).getBytes(java.nio.charset.StandardCharsets.UTF_8))
              .hex();
      lines.set(
          i,
          prevKey
              .matcher(lines.get(i))
              .replaceFirst(java.util.regex.Matcher.quoteReplacement("\"prev\":\"" + prev + "\"")));
    }
    Files.write(journal, lines);

    Run bad = mesh("journal", "verify", journal.toString());
    assertThat(bad.code()).as(bad.out()).isEqualTo(1);
    assertThat(bad.err())
        .contains("checkpoint's journal seal does not verify: records before it were changed");
  }

  @Test
  void verify_refusesAJournalShorterThanItsSnapshot_asTheStewardRefusesToStartOnIt()
      throws Exception {
    // Nothing archived, so verify reads the whole file; the snapshot beside it still says how
    // many records the steward had. A journal cut back to fewer whole records (or restored from
    // an older copy) is one chain on its own, but not the history the steward signed for.
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      for (int i = 0; i < 3; i++) {
        serve(s, chain, "served " + i);
      }
    } // the closing snapshot covers the whole journal
    assertThat(mesh("journal", "verify", journal.toString()).code()).isZero();

    List<String> lines = Files.readAllLines(journal);
    Files.write(journal, lines.subList(0, lines.size() - 2));
    Run cut = mesh("journal", "verify", journal.toString());
    assertThat(cut.code()).isNotZero();
    assertThat(cut.err()).contains("AHEAD_OF_JOURNAL").contains("records were cut");

    // Cut inside the last record: a torn final line is tolerated as an append cut short, but
    // this record was durable (the snapshot covers it), so the journal is still short.
    Files.write(journal, lines);
    try (var ch =
        java.nio.channels.FileChannel.open(journal, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - 20);
    }
    Run torn = mesh("journal", "verify", journal.toString());
    assertThat(torn.code()).isNotZero();
    assertThat(torn.err()).contains("AHEAD_OF_JOURNAL");
  }

  /**
   * Regression: with the records archived and their segments present, verify read the whole history
   * but never held it against a snapshot that covers more records than the journal has, and passed
   * a journal cut back by a record that the steward then refuses to start on ({@code
   * AHEAD_OF_JOURNAL}). Found by a tampering sweep.
   */
  @Test
  void verify_refusesAnArchivedJournalShorterThanItsSnapshot_asTheStewardDoes() throws Exception {
    GrantChain chain = hourGrant();
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, chain, "archived");
    }
    assertThat(mesh("journal", "archive", journal.toString()).code()).isZero();
    try (Steward s = steward(journal, false)) {
      serve(s, chain, "in the tail");
    } // the closing snapshot covers the whole journal, segments included
    assertThat(mesh("journal", "verify", journal.toString()).code()).isZero();

    List<String> lines = Files.readAllLines(journal);
    Files.write(journal, lines.subList(0, lines.size() - 1));
    Run cut = mesh("journal", "verify", journal.toString());
    assertThat(cut.code()).as(cut.out()).isEqualTo(1);
    assertThat(cut.err()).contains("AHEAD_OF_JOURNAL").contains("records were cut");
    assertThatThrownBy(() -> steward(journal, false).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e ->
                assertThat(e.snapshotRefusal())
                    .contains(SnapshotException.Reason.AHEAD_OF_JOURNAL));
  }

  /** A journal of three serves of {@code chain}, archived after its closing snapshot. */
  private Path archivedAfterThreeServes(GrantChain chain) throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      for (int i = 0; i < 3; i++) {
        serve(s, chain, "archived " + i);
      }
    } // the closing snapshot covers the whole journal
    assertThat(mesh("journal", "archive", journal.toString()).code()).isZero();
    return journal;
  }

  /**
   * Regression: an archived segment cut short (a part line at its end, or records missing before
   * the next segment or the live file begins) was reported as "archived, and the segments holding
   * them are not in" the folder that held it, and a steward started over it, skipping the check of
   * the records its snapshot covers as if the segment were absent; verify refused it. A segment
   * that is there but cut is damage: both now refuse it as {@code CORRUPT}, naming the file.
   */
  @Test
  void segmentCutShort_isRefusedByVerifyAndStart_namingTheSegment() throws Exception {
    GrantChain chain = hourGrant();
    Path journal = archivedAfterThreeServes(chain);
    Path seg = JournalSegments.list(journal).get(0).file();
    byte[] whole = Files.readAllBytes(seg);

    // A part line at the end of the segment, then a whole record missing from its end.
    for (int cut : new int[] {20, lastLineLength(whole) + 1}) {
      Files.write(seg, java.util.Arrays.copyOf(whole, whole.length - cut));
      Run bad = mesh("journal", "verify", journal.toString());
      assertThat(bad.code()).as(bad.out()).isEqualTo(1);
      assertThat(bad.err())
          .contains("archived segment " + seg)
          .contains("must follow in it")
          .doesNotContain("are not in");
      assertThatThrownBy(() -> steward(journal, false).close())
          .isInstanceOfSatisfying(
              StewardStartException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e.getMessage()).contains(seg.toString());
              });
    }

    // Every segment moved away: the snapshot alone stands for them, as before.
    Files.write(seg, whole);
    Files.move(JournalSegments.directory(journal), tmp.resolve("elsewhere"));
    try (Steward s = steward(journal, false)) {
      serve(s, chain, "from the snapshot");
    }
  }

  /**
   * Regression: a segment renamed to a later first record (its records then placed nowhere), and a
   * file where the segment folder goes, were both read as segments absent: verify checked from the
   * snapshot only, and a steward started, skipping the check of the records its snapshot covers.
   * Both are damage, refused by verify and start naming the file. Found by a tampering sweep.
   */
  @Test
  void segmentRenamed_orAFileForTheSegmentFolder_isRefusedByVerifyAndStart_namingIt()
      throws Exception {
    GrantChain chain = hourGrant();
    Path journal = archivedAfterThreeServes(chain);
    Path seg = JournalSegments.list(journal).get(0).file();
    Path renamed = JournalSegments.file(journal, 1);
    Files.move(seg, renamed);
    Run bad = mesh("journal", "verify", journal.toString());
    assertThat(bad.code()).as(bad.out()).isEqualTo(1);
    assertThat(bad.err())
        .contains("archived segment " + renamed + " is named for record 1 but begins with record 0")
        .doesNotContain("archived without their segments");
    assertThatThrownBy(() -> steward(journal, false).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains(renamed.toString());
            });

    Path folder = JournalSegments.directory(journal);
    Files.move(folder, tmp.resolve("elsewhere"));
    Files.writeString(folder, "not a folder");
    Run file = mesh("journal", "verify", journal.toString());
    assertThat(file.code()).as(file.out()).isEqualTo(1);
    assertThat(file.err()).contains("cannot list " + folder + ": it is not a folder");
    assertThatThrownBy(() -> steward(journal, false).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains(folder + ": it is not a folder");
            });

    // The folder removed: the snapshot alone stands for the archived records, as before.
    Files.delete(folder);
    try (Steward s = steward(journal, false)) {
      serve(s, chain, "from the snapshot");
    }
  }

  /**
   * Regression: verify of an archived journal compared the snapshot with the replay at its position
   * after the reader had already taken in the next record's grant chain, so a journal whose first
   * record after its latest snapshot is a {@code Chain} (a new grant's first serve after a restart,
   * the steward then killed before its closing snapshot) failed with "does not hold the state the
   * records before it replay to", although the steward starts on it.
   */
  @Test
  void verify_ofAnArchivedJournal_acceptsANewGrantChainJustAfterTheSnapshot() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, hourGrant(), "archived");
    }
    assertThat(mesh("journal", "archive", journal.toString()).code()).isZero();
    Path kept = tmp.resolve("kept.snapshots");
    Path store = FileSnapshotStore.beside(journal).directory();
    try (Steward s = steward(journal, false)) {
      // The snapshot a steward killed now would have left: the one the last stop wrote.
      copyFolder(store, kept);
      GrantChain another =
          Jcp.issueRoot(
              caller,
              Jcp.identity(stewardKey),
              5_000_000,
              now.minusSeconds(60),
              now.plusSeconds(3600));
      serve(s, another, "a new grant");
    }
    deleteFolder(store);
    Files.move(kept, store);
    assertThat(Files.readString(journal))
        .as("the first record after the snapshot is the new chain")
        .contains("\"type\":\"Chain\"");

    Run ok = mesh("journal", "verify", journal.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("the snapshot at record");
    try (Steward s = steward(journal, false)) {
      serve(s, hourGrant(), "after");
    }
  }

  /**
   * Regression: with another steward's snapshot as the latest beside a journal, verify replayed the
   * journal as that snapshot's steward and refused it for a reason that was not the cause (a grant
   * "wrong-holder" at the first grant decision, or a record that "does not hash as the snapshot
   * says"); the start refuses it as {@code OTHER_STEWARD}, and so does verify now, archived or not.
   */
  @Test
  void verify_refusesAnotherStewardsSnapshot_asOtherSteward() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal, true)) {
      serve(s, hourGrant(), "mine");
    }
    SigningKey otherKey = SigningKey.generate();
    Path otherJournal = tmp.resolve("other.journal");
    try (Steward s = steward(otherKey, otherJournal, true)) {
      serve(
          s,
          Jcp.issueRoot(
              caller, Jcp.identity(otherKey), 1_000_000, now.minusSeconds(60), now.plusSeconds(60)),
          "theirs");
    }
    Path theirs;
    try (var files = Files.list(FileSnapshotStore.beside(otherJournal).directory())) {
      theirs = files.filter(f -> f.toString().endsWith(".snapshot")).findFirst().orElseThrow();
    }
    Path planted =
        FileSnapshotStore.beside(journal).directory().resolve("00000000000000000999.snapshot");

    Files.copy(theirs, planted);
    Run whole = mesh("journal", "verify", journal.toString());
    assertThat(whole.code()).isEqualTo(1);
    assertThat(whole.err()).contains("OTHER_STEWARD").contains(Jcp.identity(otherKey).toString());

    Files.delete(planted);
    assertThat(mesh("journal", "archive", journal.toString()).code()).isZero();
    Files.copy(theirs, planted);
    Run archived = mesh("journal", "verify", journal.toString());
    assertThat(archived.code()).isEqualTo(1);
    assertThat(archived.err()).contains("OTHER_STEWARD").doesNotContain("wrong-holder");
  }

  private static void copyFolder(Path from, Path to) throws java.io.IOException {
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }

  private static void deleteFolder(Path dir) throws java.io.IOException {
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
  }

  private static int lastLineLength(byte[] file) {
    int end = file.length - 1;
    int start = end - 1;
    while (start >= 0 && file[start] != '\n') {
      start--;
    }
    return end - start - 1;
  }
}
