package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A witness asks for a receipt's proof while the checkpoint that would cover it is being written,
 * and that write fails: the witness is not shown the checkpoint that failed, and is answered
 * against one the journal holds (its own new one when the journal takes it, else none).
 */
class WitnessDuringFailedCheckpointTest {
  private final SigningKey key = SigningKey.generate();
  private final DurableMemoryJournal journal = new DurableMemoryJournal();
  private final BlocksThenFails failing = new BlocksThenFails(journal);
  private final LogKeeper keeper =
      new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, failing, 100);
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void release() {
    failing.open.countDown();
    pool.shutdownNow();
  }

  @Test
  void aWitnessWaitingOnACheckpointWriteThatFails_isAnsweredAgainstADurableOne() throws Exception {
    CheckpointCadenceTest.appendLeaves(keeper, 0, 2);
    keeper.checkpoint();
    CheckpointCadenceTest.appendLeaves(keeper, 2, 2);
    failing.armed = true;
    Future<Optional<SignedNote>> writing = pool.submit(keeper::checkpoint);
    failing.entered.await();

    Future<Optional<WitnessAnswer.Proof>> covered = pool.submit(() -> keeper.prove(1));
    assertThat(sizeOf(covered.get(30, TimeUnit.SECONDS).orElseThrow().checkpoint())).isEqualTo(2);
    Future<Optional<WitnessAnswer.Proof>> uncovered = pool.submit(() -> keeper.prove(3));
    failing.open.countDown();
    assertThatThrownBy(writing::get).hasCauseInstanceOf(ServeException.class);

    WitnessAnswer.Proof proof = uncovered.get(30, TimeUnit.SECONDS).orElseThrow();
    assertThat(sizeOf(proof.checkpoint()))
        .as("the witness's own checkpoint, journalled")
        .isEqualTo(4);
    assertThat(failing.written)
        .as("only durable checkpoints shown: 2, then the witness's 4")
        .hasValue(2);
    assertThat(keeper.checkpoint().map(WitnessDuringFailedCheckpointTest::sizeOf)).contains(4L);
  }

  private static long sizeOf(SignedNote note) {
    try {
      return Checkpoint.parse(note.text()).size();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Once armed, holds the next checkpoint record until {@link #open}, then refuses it. */
  static final class BlocksThenFails extends ForwardingJournal {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);
    final AtomicInteger written = new AtomicInteger();
    volatile boolean armed;

    BlocksThenFails(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      if (entry instanceof JournalEntry.Checkpoint) {
        if (armed) {
          armed = false;
          entered.countDown();
          try {
            open.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new JournalException(JournalException.Reason.IO, "disk full", null);
        }
        written.incrementAndGet();
      }
      return super.enqueue(entry);
    }
  }
}
