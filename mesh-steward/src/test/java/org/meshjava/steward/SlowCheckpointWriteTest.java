package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A journal slow to write a checkpoint (a record of its own kind, which a decorator or a remote
 * store may treat apart) holds up only the callers that need that checkpoint: a witness whose
 * receipt an earlier checkpoint covers is answered at once, against that durable one; a witness
 * whose receipt only the checkpoint being written covers waits for it, and is never shown it before
 * the journal holds it.
 */
class SlowCheckpointWriteTest {
  private final SigningKey key = SigningKey.generate();
  private final DurableMemoryJournal journal = new DurableMemoryJournal();
  private final SlowCheckpoints slow = new SlowCheckpoints(journal);
  private final LogKeeper keeper =
      new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, slow, 100);
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void release() {
    slow.open.countDown();
    pool.shutdownNow();
  }

  /**
   * Regression: the keeper held its lock across the journal's write of a checkpoint, so every
   * witness proof waited for it, even for a receipt the published checkpoint already covered.
   */
  @Test
  void aWitnessOfACoveredReceipt_isAnsweredWhileACheckpointIsBeingWritten() throws Exception {
    CheckpointCadenceTest.appendLeaves(keeper, 0, 2);
    keeper.checkpoint();
    CheckpointCadenceTest.appendLeaves(keeper, 2, 2);
    slow.arm();
    Future<Optional<SignedNote>> writing = pool.submit(keeper::checkpoint);
    slow.entered.await();

    Future<Optional<WitnessAnswer.Proof>> covered = pool.submit(() -> keeper.prove(1));
    Optional<WitnessAnswer.Proof> proof = covered.get(30, TimeUnit.SECONDS);
    assertThat(proof).isPresent();
    assertThat(sizeOf(proof.get().checkpoint())).as("the durable checkpoint").isEqualTo(2);
    assertThat(proof.get().inclusion().treeSize()).isEqualTo(2);

    // Receipt 3 is covered by no durable checkpoint: its witness waits for the one being written.
    Future<Optional<WitnessAnswer.Proof>> uncovered = pool.submit(() -> keeper.prove(3));
    assertThat(writing.isDone()).isFalse();
    slow.open.countDown();
    assertThat(sizeOf(writing.get().orElseThrow())).isEqualTo(4);
    Optional<WitnessAnswer.Proof> later = uncovered.get();
    assertThat(later).isPresent();
    assertThat(sizeOf(later.get().checkpoint())).isEqualTo(4);
    assertThat(slow.checkpointsWritten).hasValue(2);
  }

  /**
   * The same through a steward: while one serve's cadence checkpoint is being written, a serve that
   * is not due for one is served and a witness of a receipt the earlier checkpoint covers is
   * answered against it.
   */
  @Test
  void servesAndWitnessesGoOn_whileAServesCadenceCheckpointIsBeingWritten() throws Exception {
    SlowCheckpoints slowJournal = new SlowCheckpoints(new InMemoryJournal());
    GrantFixture f = new GrantFixture();
    Steward s = f.steward(slowJournal).checkpointEvery(2).closeGrace(Duration.ZERO).build();
    try {
      ServeResult first = serve(s, "0");
      serve(s, "1");
      serve(s, "2");
      slowJournal.arm();
      Future<ServeResult> due = pool.submit(() -> serve(s, "3"));
      slowJournal.entered.await();

      Future<ServeResult> notDue = pool.submit(() -> serve(s, "4"));
      assertThat(notDue.get(30, TimeUnit.SECONDS).receipt().sequence()).isEqualTo(4);
      Future<WitnessAnswer> witnessed =
          pool.submit(() -> s.witnessed(first.receipt(), first.envelope()));
      WitnessAnswer answer = witnessed.get(30, TimeUnit.SECONDS);
      assertThat(answer.verdict()).isEqualTo(WitnessVerdict.HELD);
      assertThat(sizeOf(answer.proof().orElseThrow().checkpoint())).isEqualTo(2);
      assertThat(due.isDone()).as("the due serve still waits for its checkpoint").isFalse();

      slowJournal.open.countDown();
      assertThat(due.get().receipt().sequence()).isEqualTo(3);
    } finally {
      slowJournal.open.countDown();
      s.close();
    }
  }

  private static ServeResult serve(Steward s, String prompt) throws Exception {
    ServeRequest r = GrantFixture.request(prompt, 4, 70_000);
    return s.serve(r, GrantFixture.payload(r));
  }

  private long sizeOf(SignedNote note) throws Exception {
    return Checkpoint.parse(note.text()).size();
  }

  /** Blocks the writing of checkpoint records, once armed, until {@link #open} is counted down. */
  static final class SlowCheckpoints extends ForwardingJournal {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);
    private volatile boolean armed;
    final AtomicInteger checkpointsWritten = new AtomicInteger();

    SlowCheckpoints(Journal delegate) {
      super(delegate);
    }

    void arm() {
      armed = true;
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      if (entry instanceof JournalEntry.Checkpoint) {
        if (armed) {
          entered.countDown();
          try {
            open.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JournalException(JournalException.Reason.IO, "interrupted", e);
          }
        }
        checkpointsWritten.incrementAndGet();
      }
      return super.enqueue(entry);
    }
  }
}
