package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * The transparency log rebuilt from a journal (SPEC.md §65): the receipts are the leaves, and every
 * journalled checkpoint must be the steward's, in order, reproduced by the receipts before it, and
 * sealed to its place in the journal.
 */
class LogReplayTest {
  static final NoteVerifierKey KEY = Checkpoint.logKey(STEWARD_ID);

  static void assertRefused(List<JournalRecord> records, long seq) {
    assertThatThrownBy(() -> LogReplay.replay(records, KEY, 0))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.seq()).hasValue(seq);
            });
  }

  @Test
  void theReceipts_rebuildTheTree_andReproduceEveryCheckpoint() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 100);
    h.checkpoint();
    h.checkpoint(); // the same size again is allowed
    h.sealUngranted(1);
    h.authorise(2);
    h.checkpoint();
    LogReplay.Result r = LogReplay.replay(h.records(), KEY, 9);
    assertThat(r.firstSequence()).isZero();
    assertThat(r.tree().size()).isEqualTo(2);
    assertThat(r.tree().root()).isEqualTo(h.tree.root());
    assertThat(r.checkpoints()).isEqualTo(3);
    assertThat(r.latest()).contains(h.checkpointNote());
  }

  @Test
  void aJournalWithNoReceipt_startsAtTheGivenSequence() throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0);
    LogReplay.Result r = LogReplay.replay(h.records(), KEY, 9);
    assertThat(r.firstSequence()).isEqualTo(9);
    assertThat(r.tree().size()).isZero();
    assertThat(r.latest()).isEmpty();
    assertThat(r.checkpoints()).isZero();
  }

  @Test
  void aJournalOfLaterReceipts_startsAtItsFirst() throws Exception {
    JournalHistory h = new JournalHistory();
    h.append(new JournalEntry.Sealed(5, ContentId.ofBytes(new byte[] {5})));
    h.append(new JournalEntry.Sealed(6, ContentId.ofBytes(new byte[] {6})));
    LogReplay.Result r = LogReplay.replay(h.records(), KEY, 0);
    assertThat(r.firstSequence()).isEqualTo(5);
    assertThat(r.tree().size()).isEqualTo(2);
  }

  @Test
  void aReceiptOutOfSequence_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long bad = h.append(new JournalEntry.Sealed(2, ContentId.ofBytes(new byte[] {2})));
    assertRefused(h.records(), bad);
  }

  @Test
  void aCheckpointTheStewardDidNotSign_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    SignedNote forged = new Checkpoint(STEWARD_ID.value(), 1, h.tree.root()).sign(OTHER);
    long cp = h.append(new JournalEntry.Checkpoint(forged, JournalSeal.by(STEWARD)));
    assertRefused(h.records(), cp);
  }

  @Test
  void aSmallerCheckpointAfterALargerOne_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    h.sealUngranted(1);
    h.checkpoint();
    long cp = h.append(new JournalEntry.Checkpoint(h.checkpointNote(1), JournalSeal.by(STEWARD)));
    assertRefused(h.records(), cp);
  }

  @Test
  void aCheckpointLargerThanTheReceiptsBeforeIt_isRefused() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    MerkleTree bigger = new MerkleTree();
    bigger.append(h.tree.leafHash(0).bytes());
    bigger.append(new byte[] {1});
    SignedNote ahead = new Checkpoint(STEWARD_ID.value(), 2, bigger.root()).sign(STEWARD);
    long cp = h.append(new JournalEntry.Checkpoint(ahead, JournalSeal.by(STEWARD)));
    assertRefused(h.records(), cp);
  }

  @Test
  void aCheckpointTheReceiptsDoNotReproduce_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    SignedNote other =
        new Checkpoint(STEWARD_ID.value(), 1, TreeHash.of(new byte[32])).sign(STEWARD);
    long cp = h.append(new JournalEntry.Checkpoint(other, JournalSeal.by(STEWARD)));
    assertRefused(h.records(), cp);
  }

  @Test
  void aCheckpointWhoseSealIsNotForItsPlace_isRefused() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long next = h.records().size();
    // sealed for the place after its own
    JournalSeal.Signed elsewhere =
        new JournalSeal.ToSign(STEWARD)
            .sign(next + 1, Optional.of(ContentId.ofBytes(h.lines().getLast())));
    long cp = h.append(new JournalEntry.Checkpoint(h.checkpointNote(), elsewhere));
    assertRefused(h.records(), cp);

    JournalRecord r = h.records().get((int) cp);
    JournalEntry.Checkpoint c = (JournalEntry.Checkpoint) r.entry();
    assertThatThrownBy(() -> LogReplay.checkSeal(r, c, STEWARD.verificationKey()))
        .isInstanceOf(JournalException.class);
    JournalEntry.Checkpoint unsigned =
        new JournalEntry.Checkpoint(c.note(), JournalSeal.by(STEWARD));
    assertThatThrownBy(() -> LogReplay.checkSeal(r, unsigned, STEWARD.verificationKey()))
        .isInstanceOf(JournalException.class);
  }

  @Test
  void aSealedCheckpoint_verifiesWhereItStands() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long cp = h.checkpoint();
    JournalRecord r = h.records().get((int) cp);
    LogReplay.checkSeal(r, (JournalEntry.Checkpoint) r.entry(), STEWARD.verificationKey());
    assertThatThrownBy(
            () ->
                LogReplay.checkSeal(
                    r, (JournalEntry.Checkpoint) r.entry(), OTHER.verificationKey()))
        .isInstanceOf(JournalException.class);
  }

  /**
   * {@code mesh journal verify} streams a journal through the check; it kept the whole tree (about
   * 64 bytes per receipt) and ran out of heap on a long journal. It now keeps only what a later
   * checkpoint may still sign: the tree's edge at the latest checkpoint and the receipts after it.
   */
  @Test
  void aStreamedCheck_holdsOnlyTheReceiptsAfterItsLatestCheckpoint_notTheTree() throws Exception {
    JournalHistory h = new JournalHistory();
    for (int i = 0; i < 1_000; i++) {
      h.sealUngranted(i);
      if (i % 250 == 249) {
        h.checkpoint();
      }
    }
    LogReplay.Checker checker = new LogReplay.Checker(0);
    long most = 0;
    for (JournalRecord r : h.records()) {
      checker.accept(r, KEY);
      most = Math.max(most, checker.heldBytes());
      if (r.entry() instanceof JournalEntry.Checkpoint) {
        // The edge alone, one hash per set bit of the size: no receipt is held any more.
        assertThat(checker.heldBytes()).as("after record %d", r.seq()).isLessThanOrEqualTo(64 * 32);
      }
    }
    assertThat(checker.checkpoints()).isEqualTo(4);
    // 250 receipts between checkpoints, in chunks of 256 leaf hashes: never the 1 000.
    assertThat(most).isLessThan(24 * 1024);
  }

  @Test
  void aCheckpointOfAnEarlierSize_isStillReproduced_byTheStreamedCheck() throws Exception {
    JournalHistory h = new JournalHistory();
    for (int i = 0; i < 300; i++) {
      h.sealUngranted(i);
    }
    // Signed when the tree held 150 and journalled after 150 more, then one of the size before it.
    h.append(new JournalEntry.Checkpoint(h.checkpointNote(150), JournalSeal.by(STEWARD)));
    h.append(new JournalEntry.Checkpoint(h.checkpointNote(299), JournalSeal.by(STEWARD)));
    h.checkpoint();
    LogReplay.Result r = LogReplay.replay(h.records(), KEY, 0);
    assertThat(r.checkpoints()).isEqualTo(3);
    assertThat(r.tree().root()).isEqualTo(h.tree.root());
    long back =
        h.append(new JournalEntry.Checkpoint(h.checkpointNote(299), JournalSeal.by(STEWARD)));
    assertRefused(h.records(), back);
  }

  /**
   * A check resumed from a snapshot's receipts and checkpoint (an archived journal's verify) checks
   * the later checkpoints against the tree over every receipt, as one from the journal's start: one
   * the receipts give is taken, one signed by the steward's key with another root is refused.
   * Regression: verify of an archived journal checked those checkpoints' seals only.
   */
  @Test
  void aResumedCheck_takesALaterCheckpointTheReceiptsGive_andRefusesOneWithAnotherRoot()
      throws Exception {
    JournalHistory h = new JournalHistory();
    // Past two of the window's chunks, so that the covered receipts are folded as they are read.
    for (int i = 0; i < 600; i++) {
      h.sealUngranted(i);
    }
    ReceiptIds ids = JournalReplay.replay(h.records(), JournalHistory.gate()).receipts();
    LogReplay.Checker checker =
        LogReplay.Checker.resume(ids, Optional.of(h.checkpointNote(550)), KEY);
    assertThat(checker.checkpoints()).isEqualTo(1);
    // The tree's edge at 550 and the 50 receipts after it (one chunk): not the 600.
    assertThat(checker.heldBytes()).isLessThanOrEqualTo(256 * 32 + 64 * 32);
    int before = h.records().size();
    h.sealUngranted(600);
    h.checkpoint();
    long forged =
        h.append(
            new JournalEntry.Checkpoint(
                new Checkpoint(STEWARD_ID.value(), 601, TreeHash.of(new byte[32])).sign(STEWARD),
                JournalSeal.by(STEWARD)));
    List<JournalRecord> after = h.records().subList(before, h.records().size());
    checker.accept(after.get(0), KEY);
    checker.accept(after.get(1), KEY);
    assertThat(checker.checkpoints()).isEqualTo(2);
    assertThatThrownBy(() -> checker.accept(after.get(2), KEY))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.seq()).hasValue(forged);
              assertThat(e.getMessage()).contains("do not reproduce");
            });
  }

  /** A snapshot whose checkpoint its receipts do not give is refused, naming no record. */
  @Test
  void aResumedCheck_refusesASnapshotCheckpointItsReceiptsDoNotGive() throws Exception {
    JournalHistory h = new JournalHistory();
    for (int i = 0; i < 3; i++) {
      h.sealUngranted(i);
    }
    ReceiptIds ids = JournalReplay.replay(h.records(), JournalHistory.gate()).receipts();
    SignedNote other =
        new Checkpoint(STEWARD_ID.value(), 3, TreeHash.of(new byte[32])).sign(STEWARD);
    assertThatThrownBy(() -> LogReplay.Checker.resume(ids, Optional.of(other), KEY))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.seq()).isEmpty();
              assertThat(e.getMessage())
                  .contains("the snapshot holds a checkpoint the journal's receipts do not");
            });
    SignedNote ok = h.checkpointNote();
    assertThatThrownBy(() -> LogReplay.Checker.resume(new ReceiptIds(), Optional.of(ok), KEY))
        .hasMessageContaining("the snapshot holds a checkpoint but no receipt");
  }

  @Test
  void aResult_refusesNegativeFigures() {
    assertThatThrownBy(() -> new LogReplay.Result(-1, new MerkleTree(), Optional.empty(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LogReplay.Result(0, new MerkleTree(), Optional.empty(), -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new LogReplay.Result(0, new MerkleTree(), Optional.empty(), 0).checkpoints())
        .isZero();
  }
}
