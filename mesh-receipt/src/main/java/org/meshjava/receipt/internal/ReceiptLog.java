package org.meshjava.receipt.internal;

import java.util.Objects;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.SealedReceipt;

/**
 * A steward's hash-chained receipt log (§6.3). {@link #append} stamps the next {@code sequence} and
 * {@code prev}, seals the receipt, lets the caller record it durably, and only then advances the
 * head — so a receipt that could not be recorded leaves the chain where it was.
 *
 * <p>Thread-safe: appends are serialised, so concurrent serves produce one unbroken chain.
 */
public final class ReceiptLog {

  /**
   * Records a sealed receipt before it is handed out (the journal's {@code Sealed} entry, §2.2).
   *
   * @param <R> what recording returns, handed back by {@link #append(MeshReceipt.Builder,
   *     Recorder)}: a journal's pending write, say, to be awaited once the log's lock is released
   * @param <E> what recording may throw
   */
  @FunctionalInterface
  public interface Recorder<R, E extends Exception> {
    /** Records {@code sealed}; throwing keeps the chain from advancing past it. */
    R record(SealedReceipt sealed) throws E;
  }

  /**
   * A receipt appended, with what its recorder returned.
   *
   * @param <R> what the recorder returned
   * @param sealed the sealed receipt, now the chain's head
   * @param recorded what the recorder returned for it
   */
  public record Appended<R>(SealedReceipt sealed, R recorded) {
    /** Checks the receipt is present. */
    public Appended {
      Objects.requireNonNull(sealed, "sealed");
    }
  }

  private static final long SPIN_NANOS = 200_000;

  private final java.util.concurrent.locks.ReentrantLock lock =
      new java.util.concurrent.locks.ReentrantLock();

  /** Whether a waiter is spinning now: at most one does, the rest park at once. */
  private final java.util.concurrent.atomic.AtomicBoolean spinning =
      new java.util.concurrent.atomic.AtomicBoolean();

  private final Jcr1.Sealer sealer;
  private final DidKey steward;
  private ChainHead head;

  private ReceiptLog(SigningKey key, ChainHead head) {
    this.sealer = new Jcr1.Sealer(Objects.requireNonNull(key, "key"));
    this.steward = sealer.steward();
    this.head = Objects.requireNonNull(head, "head");
  }

  /** A log starting a new chain at sequence 0. */
  public static ReceiptLog genesis(SigningKey key) {
    return new ReceiptLog(key, ChainHead.GENESIS);
  }

  /** A log continuing a chain from {@code head}, as after a restart (§6.3). */
  public static ReceiptLog resume(SigningKey key, ChainHead head) {
    return new ReceiptLog(key, head);
  }

  /** The sealing identity. */
  public DidKey steward() {
    return steward;
  }

  /** The current head. */
  public ChainHead head() {
    lock.lock();
    try {
      return head;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stamps, seals and records the next receipt, then advances the head.
   *
   * @param draft every field but {@code sequence}, {@code prev} and {@code steward}, which this log
   *     sets
   * @param recorder called with the sealed receipt before the head advances
   * @return the sealed receipt, with what the recorder returned
   * @throws E if the recorder fails; the head has not moved
   * @throws IllegalArgumentException if the draft does not make a valid receipt
   */
  public <R, E extends Exception> Appended<R> append(
      MeshReceipt.Builder draft, Recorder<R, E> recorder) throws E {
    acquire();
    try {
      MeshReceipt receipt = draft.chain(head.nextSequence(), head.prev()).steward(steward).build();
      SealedReceipt sealed = sealer.seal(receipt);
      // Before recording: once the recorder has queued the receipt, nothing may throw before the
      // head moves past it, or the next append stamps the same sequence again.
      ChainHead next = ChainHead.after(sealed);
      R recorded = recorder.record(sealed);
      head = next;
      return new Appended<>(sealed, recorded);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes the lock, spinning briefly before parking. The section it guards is one signature long
   * (tens of microseconds), shorter than it takes to park a thread and wake it again on a small
   * virtual machine, so a waiter that spins through one signature gets the lock sooner than one
   * that sleeps. Only one waiter spins at a time: the next in line. With many concurrent serves (64
   * HTTP clients on 2 cores), every waiter spinning took the cores from the thread holding the
   * lock: {@code acquire} was 8% of the proxied serve path's CPU samples.
   */
  private void acquire() {
    if (lock.tryLock()) {
      return;
    }
    if (!spinning.compareAndSet(false, true)) {
      lock.lock();
      return;
    }
    try {
      long deadline = System.nanoTime() + SPIN_NANOS;
      while (!lock.tryLock()) {
        if (System.nanoTime() > deadline) {
          lock.lock();
          return;
        }
        Thread.onSpinWait();
      }
    } finally {
      spinning.set(false);
    }
  }

  /** Stamps and seals the next receipt with nothing to record it to. */
  public SealedReceipt append(MeshReceipt.Builder draft) {
    return append(draft, receipt -> receipt).sealed();
  }
}
