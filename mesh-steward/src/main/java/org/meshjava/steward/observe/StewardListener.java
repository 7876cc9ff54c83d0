package org.meshjava.steward.observe;

import org.meshjava.jcp.DebitResult;

/**
 * Observes what a steward does, for metrics and traces: each serve (through the {@link
 * ServeObserver} it returns), each grant debit, and each journal write. Registered with {@link
 * org.meshjava.steward.Steward.Builder#listener(StewardListener)}; every method has a default that
 * does nothing, so a listener implements only what it needs.
 *
 * <p><b>Cost.</b> A steward with no listener allocates nothing and reads no clock for observation.
 * With one, the steward calls it on the serving thread: keep each call short (count, record, hand
 * off), never block.
 *
 * <p><b>Failures.</b> Nothing a listener or its observers throw (an {@link Error} included, save a
 * {@link VirtualMachineError} other than a {@link StackOverflowError}) breaks a serve: the steward
 * logs it and carries on as if the call had returned; an observer that failed at {@link
 * #serveStarted} is replaced by {@link ServeObserver#NONE} for that serve. What {@link
 * #journalWritten} throws, a {@code VirtualMachineError} included, is logged and dropped: the write
 * it reports has happened, and its answer to the steward stands. So is what {@link #debited}, an
 * observer's {@code SEAL} phase and its {@code served} throw: the serve's work is debited by then,
 * and the caller gets the receipt sealed and journalled, never an error for work paid for.
 *
 * <p><b>Thread safety.</b> Serves run concurrently, so {@link #serveStarted}, {@link #debited} and
 * {@link #journalWritten} are called from many threads at once: implementations must be
 * thread-safe. The observer returned for one serve is called by that serve's thread only.
 *
 * <p>State that is not an event (where the chain head stands, which counters are live, whether the
 * journal is writable) is read when needed from {@link org.meshjava.steward.Steward#readiness()}
 * and {@link org.meshjava.steward.Steward#head()}, as a gauge would.
 */
public interface StewardListener {
  /**
   * A serve begins. Returns the observer that follows its phases and outcome, or {@link
   * ServeObserver#NONE}.
   */
  default ServeObserver serveStarted(ServeStarted serve) {
    return ServeObserver.NONE;
  }

  /**
   * A grant was debited for a serve's metered joules (§2 phase 3): after a served request, and
   * after one refused once its engine had run (the work happened, so it is paid for).
   */
  default void debited(DebitResult debit) {}

  /** A journal write's step was timed. */
  default void journalWritten(JournalWrite write) {}
}
