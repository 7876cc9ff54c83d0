package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;

/**
 * The checkpoint cadence ({@code checkpointEvery}, SPEC.md §65) when serves seal concurrently: each
 * serve appends its leaf under the chain's lock, then waits for its journal write, and only then
 * asks whether a checkpoint is due, so by the time one asks, others may have appended past the
 * multiple.
 */
class CheckpointCadenceTest {
  private final SigningKey key = SigningKey.generate();
  private final DurableMemoryJournal journal = new DurableMemoryJournal();
  private final LogKeeper keeper =
      new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, journal, 2);

  /**
   * Regression: the cadence signed only when the size a serve read was an exact multiple, so three
   * serves sealing receipts 0 to 2 together (each reading size 3) signed nothing at 2.
   */
  @Test
  void aMultiplePassedByConcurrentSeals_isSignedOnce_byTheFirstServeToLook() throws Exception {
    appendLeaves(0, 3);
    for (int serve = 0; serve < 3; serve++) {
      keeper.afterSeal();
    }
    assertThat(checkpointSizes()).containsExactly(3L);

    appendLeaves(3, 1);
    keeper.afterSeal();
    assertThat(checkpointSizes()).containsExactly(3L, 4L);
  }

  /**
   * Regression: a cadence checkpoint that could not be journalled kept its multiple claimed, so the
   * log went unsigned until the next multiple, a whole cadence later. The next seal now tries
   * again.
   */
  @Test
  void aCadenceCheckpointThatFails_isTriedAgainByTheNextSeal() throws Exception {
    FlakyCheckpoints flaky = new FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 4);
    appendLeaves(k, 0, 4);
    flaky.failures.add(new JournalException(JournalException.Reason.IO, "disk busy", null));
    k.afterSeal();
    assertThat(checkpointSizes()).isEmpty();

    appendLeaves(k, 4, 1);
    k.afterSeal();
    assertThat(checkpointSizes()).as("signed by the seal after the failure").containsExactly(5L);
  }

  /**
   * Regression: a journal that threw unchecked on a cadence checkpoint failed the serve that asked
   * for it, after its receipt was sealed and journalled (a resend would be served and debited
   * again). The checkpoint fails alone, and the next seal tries again.
   */
  @Test
  void anUncheckedFailureOfACadenceCheckpoint_failsTheCheckpoint_notTheSeal() throws Exception {
    FlakyCheckpoints flaky = new FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 4);
    appendLeaves(k, 0, 4);
    flaky.failures.add(new IllegalStateException());
    k.afterSeal();
    assertThat(checkpointSizes()).isEmpty();

    appendLeaves(k, 4, 1);
    k.afterSeal();
    assertThat(checkpointSizes()).containsExactly(5L);
  }

  /**
   * Regression: a journal's Error on a cadence checkpoint (its own assertion) passed the cadence's
   * catch with the multiple still claimed, so the log went unsigned for a whole cadence. It fails
   * the checkpoint alone, and the next seal tries again; the JVM failing passes, the claim given
   * back.
   */
  @Test
  void anErrorOfACadenceCheckpoint_failsTheCheckpoint_andTheNextSealTriesAgain() throws Exception {
    FlakyCheckpoints flaky = new FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 4);
    appendLeaves(k, 0, 4);
    flaky.failures.add(new AssertionError("the journal's own assertion"));
    k.afterSeal();
    assertThat(checkpointSizes()).isEmpty();

    OutOfMemoryError oom = new OutOfMemoryError("the heap");
    flaky.failures.add(oom);
    assertThatThrownBy(k::afterSeal).isSameAs(oom);
    assertThat(checkpointSizes()).isEmpty();

    appendLeaves(k, 4, 1);
    k.afterSeal();
    assertThat(checkpointSizes()).containsExactly(5L);
  }

  /**
   * Regression: a journal that threw unchecked on the checkpoint a witness's proof asks for failed
   * the witness's answer; the proof is given against the latest checkpoint there is, as for a
   * journal failure.
   */
  @Test
  void aProofWhoseNewCheckpointFailsUnchecked_isGivenAgainstTheLatestOne() throws Exception {
    FlakyCheckpoints flaky = new FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 100);
    appendLeaves(k, 0, 2);
    k.checkpoint();
    appendLeaves(k, 2, 1);
    flaky.failures.add(new IllegalStateException());
    Optional<WitnessAnswer.Proof> proof = k.prove(0);
    assertThat(proof).isPresent();
    assertThat(checkpointSizes()).containsExactly(2L);
  }

  /** Fails the next checkpoint records with the exceptions queued, then records as its delegate. */
  static final class FlakyCheckpoints extends ForwardingJournal {
    final Queue<Throwable> failures = new ArrayDeque<>();

    FlakyCheckpoints(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Throwable next = entry instanceof JournalEntry.Checkpoint ? failures.poll() : null;
      if (next instanceof JournalException e) {
        throw e;
      }
      if (next instanceof Error e) {
        throw e;
      }
      if (next != null) {
        throw (RuntimeException) next;
      }
      return super.enqueue(entry);
    }
  }

  private void appendLeaves(long first, int count) {
    appendLeaves(keeper, first, count);
  }

  static void appendLeaves(LogKeeper k, long first, int count) {
    for (long s = first; s < first + count; s++) {
      k.append(s, ContentId.ofBytes(new byte[] {(byte) s}));
    }
  }

  private List<Long> checkpointSizes() throws Exception {
    List<Long> sizes = new ArrayList<>();
    for (JournalRecord r : journal.records()) {
      if (r.entry() instanceof JournalEntry.Checkpoint c) {
        sizes.add(
            Checkpoint.open(c.note(), Checkpoint.logKey(DidKey.of(key.verificationKey()))).size());
      }
    }
    return sizes;
  }
}
