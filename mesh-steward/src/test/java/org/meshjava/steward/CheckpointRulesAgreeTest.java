package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * A start replays the journal into {@link LogKeeper.Rebuilder} ({@code TransparencyLog.publish}),
 * {@code mesh journal verify} into {@link LogReplay.Checker}; the two once held their own copies of
 * the journalled checkpoint's rules (SPEC 65) and disagreed on a checkpoint of the empty tree
 * (f7b3165). Both now ask {@code CheckpointRules}, but each still opens the note and checks the
 * seal itself. Each journal here, good or bad, goes through both, which must refuse it at the same
 * record or both take it: a rule added to one path alone fails the case that breaks it.
 */
class CheckpointRulesAgreeTest {
  private static final SigningKey STEWARD = SigningKey.fromSeedHex("25".repeat(32));
  private static final SigningKey OTHER = SigningKey.fromSeedHex("26".repeat(32));
  private static final DidKey STEWARD_ID = DidKey.of(STEWARD.verificationKey());
  private static final NoteVerifierKey LOG_KEY = Checkpoint.logKey(STEWARD_ID);
  private static final String ORIGIN = Checkpoint.originOf(STEWARD_ID);

  /** The receipts every journal here starts with. */
  private static final int RECEIPTS = 3;

  private final MerkleTree tree = new MerkleTree();

  CheckpointRulesAgreeTest() {
    for (int i = 0; i < RECEIPTS; i++) {
      tree.append(envelope(i).bytes());
    }
  }

  private static ContentId envelope(int i) {
    return ContentId.ofBytes(("receipt " + i).getBytes(StandardCharsets.UTF_8));
  }

  private SignedNote checkpoint(long size) throws Exception {
    return new Checkpoint(ORIGIN, size, tree.root(size)).sign(STEWARD);
  }

  /** The receipts, then one sealed {@code Checkpoint} record per note. */
  private static List<JournalRecord> journal(SignedNote... notes) {
    List<JournalRecord> out = new ArrayList<>();
    for (int i = 0; i < RECEIPTS; i++) {
      out.add(record(out.size(), new JournalEntry.Sealed(i, envelope(i))));
    }
    for (SignedNote n : notes) {
      long seq = out.size();
      JournalSeal seal = new JournalSeal.ToSign(STEWARD).sign(seq, prev(seq));
      out.add(record(seq, new JournalEntry.Checkpoint(n, seal)));
    }
    return out;
  }

  private static JournalRecord record(long seq, JournalEntry e) {
    return new JournalRecord(seq, prev(seq), e);
  }

  private static Optional<ContentId> prev(long seq) {
    // Neither path links records (the journal does): any id serves, the seal signs it.
    return seq == 0 ? Optional.empty() : Optional.of(ContentId.ofBytes(new byte[] {(byte) seq}));
  }

  /** The record {@code mesh journal verify} refuses, or empty when it takes them all. */
  private static OptionalLong verifyRefuses(List<JournalRecord> records) {
    LogReplay.Checker checker = new LogReplay.Checker(0);
    for (JournalRecord r : records) {
      try {
        checker.accept(r, LOG_KEY);
      } catch (JournalException e) {
        assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
        return OptionalLong.of(r.seq());
      }
    }
    return OptionalLong.empty();
  }

  /** The record a start refuses, or empty when it takes them all. */
  private static OptionalLong startRefuses(List<JournalRecord> records) {
    return startRefusal(records)
        .map(e -> OptionalLong.of(e.seq().orElseThrow()))
        .orElse(OptionalLong.empty());
  }

  /** What a start refuses the journal with, or empty when it takes every record. */
  private static Optional<JournalException> startRefusal(List<JournalRecord> records) {
    LogKeeper.Rebuilder start = new LogKeeper.Rebuilder(STEWARD, Set.of());
    for (JournalRecord r : records) {
      try {
        start.accept(r);
      } catch (JournalException e) {
        assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
        assertThat(e.seq()).hasValue(r.seq());
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * A checkpoint this steward's key did not sign is refused with advice about the key; which
   * steward it names is read from the note. One in this steward's own name (signed by another key)
   * or of a log whose origin did not sign it names no other steward as its signer: naming this
   * steward, or an origin no signature carries, would send a developer after the wrong key.
   */
  @Test
  void aCheckpointThisStewardDidNotSign_namesTheSignerOnlyWhenItIsAnotherStewardsOwn()
      throws Exception {
    String otherOrigin = Checkpoint.originOf(DidKey.of(OTHER.verificationKey()));
    Map<String, SignedNote> notOthers = new LinkedHashMap<>();
    notOthers.put(
        "another key, this steward's name", new Checkpoint(ORIGIN, 3, tree.root(3)).sign(OTHER));
    notOthers.put(
        "another log's origin, signed under a third name",
        SignedNote.sign(new Checkpoint(otherOrigin, 3, tree.root(3)).body(), "a-witness", OTHER));
    for (var c : notOthers.entrySet()) {
      assertThat(startRefusal(journal(c.getValue())).orElseThrow().getMessage())
          .as(c.getKey())
          .contains("records a checkpoint this steward (" + STEWARD_ID + ") did not sign")
          .contains("start this steward with that key")
          .doesNotContain("signed by");
    }

    SignedNote theirs = new Checkpoint(otherOrigin, 3, tree.root(3)).sign(OTHER);
    assertThat(startRefusal(journal(theirs)).orElseThrow().getMessage())
        .contains(
            "records a checkpoint signed by "
                + otherOrigin
                + ", not by this steward ("
                + STEWARD_ID
                + ")")
        .contains("start this steward with that key");
  }

  @Test
  void everyCheckpoint_isTakenOrRefusedAlike_byTheStartAndByJournalVerify() throws Exception {
    long first = RECEIPTS; // the first checkpoint record's seq
    Map<String, List<JournalRecord>> good = new LinkedHashMap<>();
    good.put("the whole tree", journal(checkpoint(3)));
    good.put("a growing log", journal(checkpoint(1), checkpoint(2), checkpoint(3)));
    good.put("the same size twice", journal(checkpoint(2), checkpoint(2)));

    Map<String, List<JournalRecord>> bad = new LinkedHashMap<>();
    bad.put("size 0", journal(new Checkpoint(ORIGIN, 0, TreeHash.empty()).sign(STEWARD)));
    bad.put("a shrinking size", journal(checkpoint(3), checkpoint(2)));
    bad.put("a size past the receipts", journal(tree4().sign(STEWARD)));
    bad.put(
        "another key, the steward's name",
        journal(new Checkpoint(ORIGIN, 3, tree.root(3)).sign(OTHER)));
    bad.put(
        "another log's origin, the steward's key",
        journal(
            SignedNote.sign(
                new Checkpoint(DidKey.of(OTHER.verificationKey()).value(), 3, tree.root(3)).body(),
                ORIGIN,
                STEWARD)));
    bad.put(
        "a wrong root for the size",
        journal(new Checkpoint(ORIGIN, 3, tree.root(2)).sign(STEWARD)));
    bad.put(
        "a body that is no checkpoint",
        journal(SignedNote.sign("not a checkpoint\n", ORIGIN, STEWARD)));
    bad.put(
        "a body with an extension line",
        journal(SignedNote.sign(checkpoint(3).text() + "extra\n", ORIGIN, STEWARD)));

    for (var c : good.entrySet()) {
      assertThat(verifyRefuses(c.getValue())).as("verify: " + c.getKey()).isEmpty();
      assertThat(startRefuses(c.getValue())).as("start: " + c.getKey()).isEmpty();
    }
    for (var c : bad.entrySet()) {
      OptionalLong verify = verifyRefuses(c.getValue());
      assertThat(verify).as("verify: " + c.getKey()).isPresent();
      assertThat(startRefuses(c.getValue())).as("start: " + c.getKey()).isEqualTo(verify);
      assertThat(verify.getAsLong()).as(c.getKey()).isGreaterThanOrEqualTo(first);
    }
  }

  /** A checkpoint of one more receipt than the journal holds, its root a real one. */
  private Checkpoint tree4() {
    MerkleTree longer = new MerkleTree();
    for (int i = 0; i <= RECEIPTS; i++) {
      longer.append(envelope(i).bytes());
    }
    return new Checkpoint(ORIGIN, longer.size(), longer.root());
  }
}
