package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A witness of a receipt no published checkpoint covers, asked while another caller is journalling
 * one, queues for the keeper's lock and is answered once that write ends. {@code
 * SlowCheckpointWriteTest} asks the same but lets the write go at once, so its witness usually
 * finds the lock free; here the write is held until the witness is seen parked on the lock, so the
 * path that takes the lock after a failed {@code tryLock} is the one run every time.
 */
class ProveQueuedBehindCheckpointTest {
  private final SlowCheckpointWriteTest.SlowCheckpoints slow =
      new SlowCheckpointWriteTest.SlowCheckpoints(new DurableMemoryJournal());
  private final LogKeeper keeper =
      new LogKeeper.Rebuilder(SigningKey.generate(), Set.of()).finish(ChainHead.GENESIS, slow, 100);

  @AfterEach
  void release() {
    slow.open.countDown();
  }

  @Test
  void anUncoveredReceipt_waitsOnTheLock_thenIsProvenAgainstTheCheckpointWritten()
      throws Exception {
    CheckpointCadenceTest.appendLeaves(keeper, 0, 2);
    keeper.checkpoint();
    CheckpointCadenceTest.appendLeaves(keeper, 2, 2);
    slow.arm();
    CompletableFuture<Optional<SignedNote>> writing = new CompletableFuture<>();
    Thread writer = Thread.ofPlatform().start(() -> complete(writing, keeper::checkpoint));
    slow.entered.await();

    CompletableFuture<Optional<WitnessAnswer.Proof>> uncovered = new CompletableFuture<>();
    Thread witness = Thread.ofPlatform().start(() -> complete(uncovered, () -> keeper.prove(3)));
    // Parked means queued on the keeper's lock: nothing else in prove waits.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (witness.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(witness.getState())
        .as("the witness waits for the lock")
        .isEqualTo(Thread.State.WAITING);
    assertThat(uncovered).isNotDone();

    slow.open.countDown();
    assertThat(sizeOf(writing.get(30, TimeUnit.SECONDS).orElseThrow())).isEqualTo(4);
    Optional<WitnessAnswer.Proof> proof = uncovered.get(30, TimeUnit.SECONDS);
    assertThat(proof).isPresent();
    assertThat(sizeOf(proof.get().checkpoint())).isEqualTo(4);
    assertThat(proof.get().inclusion().treeSize()).isEqualTo(4);
    writer.join();
    witness.join();
    // The witness's own checkpoint call found the log signed at 4: no third checkpoint.
    assertThat(slow.checkpointsWritten).hasValue(2);
  }

  private interface Call<T> {
    T call() throws Exception;
  }

  private static <T> void complete(CompletableFuture<T> f, Call<T> call) {
    try {
      f.complete(call.call());
    } catch (Exception | Error e) {
      f.completeExceptionally(e);
    }
  }

  private static long sizeOf(SignedNote note) throws Exception {
    return Checkpoint.parse(note.text()).size();
  }
}
