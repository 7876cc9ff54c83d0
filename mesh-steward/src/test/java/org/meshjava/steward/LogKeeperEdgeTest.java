package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * The edges of {@link LogKeeper} that the steward-level tests pass over: the log's first leaf (the
 * witness's answer for the first receipt a log holds, §2.2) and the writing lock a cosignature
 * takes, which a later checkpoint on another thread must find free.
 */
class LogKeeperEdgeTest {
  private final SigningKey key = SigningKey.generate();
  private final SigningKey witness = SigningKey.generate();
  private final NoteVerifierKey witnessKey =
      new NoteVerifierKey("witness.example", witness.verificationKey());
  private final DurableMemoryJournal journal = new DurableMemoryJournal();

  /** Daemon threads: a checkpoint left waiting on a lock nobody lets go must not hold the JVM. */
  private final ExecutorService pool =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "log-keeper-edge");
            t.setDaemon(true);
            return t;
          });

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private LogKeeper keeper(ChainHead start) {
    return new LogKeeper.Rebuilder(key, Set.of(witnessKey)).finish(start, journal, 100);
  }

  private static ContentId leaf(long sequence) {
    return ContentId.ofBytes(new byte[] {(byte) sequence});
  }

  @Test
  void theFirstLeafOfALogFromGenesis_isHeld() throws Exception {
    LogKeeper k = keeper(ChainHead.GENESIS);
    CheckpointCadenceTest.appendLeaves(k, 0, 2);
    assertThat(k.holds(0, leaf(0))).isTrue();
    assertThat(k.holds(0, leaf(1))).as("another envelope at 0").isFalse();
  }

  /** A chain continued on a new journal (§6.3): the log's first leaf is receipt 5, not 0. */
  @Test
  void theFirstLeafOfALogStartingPastZero_isHeld_andAReceiptBeforeItIsNot() throws Exception {
    LogKeeper k = keeper(new ChainHead(5, Optional.of(leaf(4))));
    CheckpointCadenceTest.appendLeaves(k, 5, 2);
    assertThat(k.holds(5, leaf(5))).isTrue();
    assertThat(k.holds(6, leaf(6))).isTrue();
    assertThat(k.holds(4, leaf(4))).as("before the log's first receipt").isFalse();
    assertThat(k.holds(7, leaf(7))).as("past the log's last receipt").isFalse();
  }

  /**
   * A cosignature takes the writing lock; a checkpoint asked for afterwards on another thread (the
   * next serve's cadence, an operator's) is signed, not left waiting on a lock no one lets go.
   */
  @Test
  void afterACosignature_aCheckpointOnAnotherThreadIsSigned() throws Exception {
    LogKeeper k = keeper(ChainHead.GENESIS);
    CheckpointCadenceTest.appendLeaves(k, 0, 1);
    SignedNote latest = k.checkpoint().orElseThrow();
    SignedNote line = SignedNote.sign(latest.text(), witnessKey.name(), witness);
    SignedNote cosigned = k.cosign(latest.with(line.signatures().get(0)));
    cosigned.verify(witnessKey);

    CheckpointCadenceTest.appendLeaves(k, 1, 1);
    Future<Optional<SignedNote>> next = pool.submit(k::checkpoint);
    assertThat(sizeOf(next.get(30, TimeUnit.SECONDS).orElseThrow())).isEqualTo(2);
  }

  /** The same after a cosignature the keeper refuses: the lock is let go on the way out too. */
  @Test
  void afterARefusedCosignature_aCheckpointOnAnotherThreadIsSigned() throws Exception {
    LogKeeper k = keeper(ChainHead.GENESIS);
    CheckpointCadenceTest.appendLeaves(k, 0, 1);
    SignedNote first = k.checkpoint().orElseThrow();
    CheckpointCadenceTest.appendLeaves(k, 1, 1);
    k.checkpoint().orElseThrow();
    SignedNote line = SignedNote.sign(first.text(), witnessKey.name(), witness);
    assertThatThrownBy(() -> k.cosign(first.with(line.signatures().get(0))))
        .isInstanceOf(LogException.class);

    CheckpointCadenceTest.appendLeaves(k, 2, 1);
    Future<Optional<SignedNote>> next = pool.submit(k::checkpoint);
    assertThat(sizeOf(next.get(30, TimeUnit.SECONDS).orElseThrow())).isEqualTo(3);
  }

  private static long sizeOf(SignedNote note) throws LogException {
    return Checkpoint.parse(note.text()).size();
  }
}
