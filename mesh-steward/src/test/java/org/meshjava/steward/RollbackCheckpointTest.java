package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.GrantSuspension;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * A journal restored, with its snapshots, from an older copy (a rollback) starts: nothing on the
 * steward's storage shows the records that followed the copy (SPEC.md §60.8). A later checkpoint
 * the steward signed does show it, and is taken as evidence exactly as a later receipt is (§2.2,
 * SPEC.md §60.4): grants are suspended, and a presentation spent after the copy is not spent again.
 */
class RollbackCheckpointTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  Path snapshots() {
    return dir.resolve("steward.journal.snapshots");
  }

  Steward open() throws Exception {
    return f.steward(FileJournal.open(journal()))
        .snapshots(new FileSnapshotStore(snapshots()))
        .snapshotEvery(0)
        .build();
  }

  /** One granted serve after another, on the same chain; each presentation is spent once. */
  record Spent(ServeRequest request, Presentation presentation) {}

  Spent serve(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    Presentation p = f.present(chain, req);
    s.serve(req, GrantFixture.payload(req), p);
    return new Spent(req, p);
  }

  /**
   * Serves two receipts, copies the journal and its snapshots, serves two more and takes the latest
   * checkpoint, then restores the copy: the rolled-back steward, and the later checkpoint.
   */
  record RolledBack(GrantChain chain, List<Spent> afterTheCopy, SignedNote latest) {}

  RolledBack rollBack() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = open()) {
      serve(s, chain, "before the copy 0");
      serve(s, chain, "before the copy 1");
    }
    Path copy = dir.resolve("copy");
    copyTree(dir, copy, List.of(journal(), snapshots()));
    List<Spent> after = new ArrayList<>();
    SignedNote latest;
    try (Steward s = open()) {
      after.add(serve(s, chain, "after the copy 0"));
      after.add(serve(s, chain, "after the copy 1"));
      latest = s.checkpoint().orElseThrow();
    }
    assertThat(Checkpoint.parse(latest.text()).size()).isEqualTo(4);
    // The operator restores the older copy, snapshots included.
    deleteTree(snapshots());
    Files.delete(journal());
    copyTree(
        copy,
        dir,
        List.of(copy.resolve(journal().getFileName()), copy.resolve("steward.journal.snapshots")));
    return new RolledBack(chain, after, latest);
  }

  @Test
  void
      aLaterCheckpointShownToARolledBackSteward_suspendsGrants_soASpentPresentationIsNotSpentAgain()
          throws Exception {
    RolledBack rb = rollBack();
    Spent spentAfterTheCopy = rb.afterTheCopy().get(0);
    try (Steward s = open()) {
      assertThat(s.grantsSuspended()).as("the start cannot see the rollback").isEmpty();
      // A witness shows the checkpoint it was handed (here, offering its cosignature).
      assertThatThrownBy(() -> s.cosign(rb.latest()))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH));
      assertThatThrownBy(
              () ->
                  s.serve(
                      spentAfterTheCopy.request(),
                      GrantFixture.payload(spentAfterTheCopy.request()),
                      spentAfterTheCopy.presentation()))
          .isInstanceOf(GrantsSuspendedException.class);
      assertThat(s.grantsSuspended())
          .hasValueSatisfying(r -> assertThat(r).contains("4 receipts").contains("resume-grants"));
      ServeRequest ungranted = GrantFixture.request("ungranted goes on", 4, 10_000);
      s.serve(ungranted, GrantFixture.payload(ungranted));
    }
    assertThat(JournalFile.read(journal()).records())
        .filteredOn(r -> r.entry() instanceof JournalEntry.SuspendedByCheckpoint)
        .singleElement()
        .satisfies(
            r ->
                assertThat(((JournalEntry.SuspendedByCheckpoint) r.entry()).checkpoint())
                    .isEqualTo(rb.latest()));
    // A restart (from the snapshot written on close, which carries the suspension) keeps it.
    try (Steward s = open()) {
      assertThat(s.grantsSuspended()).isPresent();
      Spent other = rb.afterTheCopy().get(1);
      assertThatThrownBy(
              () ->
                  s.serve(
                      other.request(), GrantFixture.payload(other.request()), other.presentation()))
          .isInstanceOf(GrantsSuspendedException.class);
    }
    // The operator restores the journal (here: accepts the loss) and lifts the suspension.
    try (FileJournal j = FileJournal.open(journal())) {
      assertThat(GrantSuspension.lift(j, "restored from the latest backup")).isPresent();
    }
    try (Steward s = open()) {
      assertThat(s.grantsSuspended()).isEmpty();
      serve(s, rb.chain(), "honoured again");
    }
  }

  @Test
  void witnessCheckpoint_answersNotHeld_forALargerTree_andForAnotherRootAtASizeTheLogHas()
      throws Exception {
    RolledBack rb = rollBack();
    try (Steward s = open()) {
      assertThat(s.witnessCheckpoint(rb.latest())).isEqualTo(WitnessVerdict.NOT_HELD);
      assertThat(s.grantsSuspended()).isPresent();
      // Only the first suspension is recorded.
      assertThat(s.witnessCheckpoint(rb.latest())).isEqualTo(WitnessVerdict.NOT_HELD);
    }
    assertThat(JournalFile.read(journal()).records())
        .filteredOn(r -> r.entry() instanceof JournalEntry.SuspendedByCheckpoint)
        .hasSize(1);

    for (long size : new long[] {1, 2}) {
      // A fork: the same key signed another history of a size this log has.
      Path fork = dir.resolve("fork-" + size);
      Files.createDirectories(fork);
      try (Steward s = f.steward(FileJournal.open(fork.resolve("j"))).build()) {
        serve(s, rb.chain(), "fork 0");
        serve(s, rb.chain(), "fork 1");
        SignedNote forked = signed(f.stewardKey, size, TreeHash.of(new byte[32]));
        assertThat(s.witnessCheckpoint(forked))
            .as("size %s", size)
            .isEqualTo(WitnessVerdict.NOT_HELD);
        assertThat(s.grantsSuspended()).isPresent();
      }
    }
  }

  @Test
  void checkpointsThatAreNoEvidence_orThatTheLogHolds_suspendNothing() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = open()) {
      serve(s, chain, "0");
      SignedNote first = s.checkpoint().orElseThrow();
      serve(s, chain, "1");
      SignedNote second = s.checkpoint().orElseThrow();
      serve(s, chain, "2");

      // Held: the latest, and an earlier one the log is consistent with.
      assertThat(s.witnessCheckpoint(second)).isEqualTo(WitnessVerdict.HELD);
      assertThat(s.witnessCheckpoint(first)).isEqualTo(WitnessVerdict.HELD);
      assertThatThrownBy(() -> s.cosign(first))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH));

      // Another key signing a larger tree in this steward's name, and another steward's log.
      SigningKey other = SigningKey.generate();
      SignedNote foreign =
          new Checkpoint(s.logKey().name(), 9, TreeHash.of(new byte[32])).sign(other);
      assertThatThrownBy(() -> s.witnessCheckpoint(foreign)).isInstanceOf(LogException.class);
      assertThatThrownBy(() -> s.cosign(foreign))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH));
      SignedNote theirs =
          new Checkpoint(
                  Checkpoint.originOf(
                      org.meshjava.core.identity.DidKey.of(other.verificationKey())),
                  9,
                  TreeHash.of(new byte[32]))
              .sign(other);
      assertThatThrownBy(() -> s.witnessCheckpoint(theirs)).isInstanceOf(LogException.class);
      assertThatThrownBy(() -> s.cosign(theirs)).isInstanceOf(LogException.class);

      // The steward's own signature over a note that is no checkpoint.
      SignedNote notACheckpoint =
          SignedNote.sign("not a checkpoint\n", s.logKey().name(), f.stewardKey);
      assertThatThrownBy(() -> s.witnessCheckpoint(notACheckpoint))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.MALFORMED_CHECKPOINT));
      assertThatThrownBy(() -> s.cosign(notACheckpoint)).isInstanceOf(LogException.class);

      assertThat(s.grantsSuspended()).isEmpty();
      serve(s, chain, "grants go on");
    }
    assertThat(JournalFile.read(journal()).records())
        .noneMatch(r -> r.entry() instanceof JournalEntry.SuspendedByCheckpoint);
  }

  @Test
  void withTheLogTurnedOff_aCheckpointIsNotKept_andSuspendsNothing() throws Exception {
    RolledBack rb = rollBack();
    try (Steward s = f.steward(FileJournal.open(journal())).transparencyLog(false).build()) {
      assertThatThrownBy(() -> s.witnessCheckpoint(rb.latest()))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.NOT_KEPT));
      assertThat(s.grantsSuspended()).isEmpty();
    }
  }

  private SignedNote signed(SigningKey key, long size, TreeHash root) {
    return new Checkpoint(Checkpoint.originOf(f.steward), size, root).sign(key);
  }

  /**
   * Copies {@code paths} (files or folders under {@code from}) to the same names under {@code to}.
   */
  private static void copyTree(Path from, Path to, List<Path> paths) throws IOException {
    Files.createDirectories(to);
    for (Path p : paths) {
      if (!Files.exists(p)) {
        continue;
      }
      try (Stream<Path> all = Files.walk(p)) {
        for (Path src : all.toList()) {
          Path dst = to.resolve(from.relativize(src).toString());
          if (Files.isDirectory(src)) {
            Files.createDirectories(dst);
          } else {
            Files.copy(src, dst);
          }
        }
      }
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path q : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
