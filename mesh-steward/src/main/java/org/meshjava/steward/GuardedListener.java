package org.meshjava.steward;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.jcp.DebitResult;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered listeners, called in registration order, each call guarded: what a listener throws
 * is logged and dropped, so that observing can never break a serve (only the JVM failing passes,
 * {@link JvmFailure}'s rule; a {@link StackOverflowError} and the fault of a read of a file the
 * listener mapped that was cut short are the listener's own and are dropped too). Thread-safe when
 * the listeners are.
 */
final class GuardedListener implements StewardListener {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedListener.class);

  private final List<StewardListener> listeners;

  GuardedListener(List<StewardListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /** Runs one listener call; anything it throws, short of a failing JVM, is logged and dropped. */
  private static void guarded(Object who, String call, Runnable action) {
    try {
      action.run();
    } catch (StackOverflowError recursed) {
      // The listener's own: its frames are unwound by now, so the thread is as sound as after any
      // other listener failure, and failing the serve here would fail one already debited or
      // sealed (paid-for work, a journalled receipt, neither handed out).
      String name = who.getClass().getName();
      logThrown(
          recursed,
          e -> LOG.warn("steward listener {} overflowed its stack in {}; ignored", name, call, e),
          kind ->
              LOG.warn(
                  "steward listener {} overflowed its stack in {} ({}, which cannot be printed);"
                      + " ignored",
                  name,
                  call,
                  kind));
    } catch (Throwable t) {
      // The one rule for the JVM failing (JvmFailure): the heap gone passes; the fault of a read of
      // a file the listener mapped that was cut short is the listener's input failing, dropped
      // like any other failure of its own.
      JvmFailure.passIfFailing(t);
      String name = who.getClass().getName();
      logThrown(
          t,
          e -> LOG.warn("steward listener {} failed in {}; ignored", name, call, e),
          kind ->
              LOG.warn(
                  "steward listener {} failed in {} ({}, which cannot be printed); ignored",
                  name,
                  call,
                  kind));
    }
  }

  /**
   * Logs {@code thrown}, a listener's, with its stack trace through {@code withTrace}; where
   * printing it throws, through {@code withoutTrace}, given its class's name. Its {@code
   * getMessage}, {@code toString} and {@code getCause} are the listener's code and may throw: that
   * throw, out of the logging, would leave the guard and fail the serve the guard keeps the
   * listener out of (an untyped exception in place of a receipt or of a typed refusal). Only the
   * JVM failing while it prints passes.
   */
  static void logThrown(
      Throwable thrown, Consumer<Throwable> withTrace, Consumer<String> withoutTrace) {
    ThrowableWords.log(thrown, withTrace, withoutTrace);
  }

  /**
   * Makes a listener or observer call that comes once a serve's work has been debited ({@code
   * debited}, the seal phase's start, {@code served}). Even a {@link VirtualMachineError} from it,
   * which the guard lets pass, is logged here and goes no further: passing, it failed a serve whose
   * debit was journalled (and, from {@code served}, whose receipt was sealed and journalled) and
   * handed the caller an error for work paid for, a receipt never handed out, and a resend that
   * would be served and debited again. What was served is the receipt sealed and journalled.
   */
  static void afterTheWork(String call, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException | Error e) {
      logThrown(
          e,
          t ->
              LOG.error(
                  "steward listener failed in {} after the serve's work; the serve stands",
                  call,
                  t),
          kind ->
              LOG.error(
                  "steward listener failed in {} after the serve's work ({}, which cannot be"
                      + " printed); the serve stands",
                  call,
                  kind));
    }
  }

  /** Makes {@code call} on each of {@code targets} in order, each one guarded. */
  private static <T> void each(List<T> targets, String call, Consumer<T> action) {
    for (T target : targets) {
      guarded(target, call, () -> action.accept(target));
    }
  }

  @Override
  public ServeObserver serveStarted(ServeStarted serve) {
    List<ServeObserver> observers = new ArrayList<>(listeners.size());
    for (StewardListener l : listeners) {
      guarded(
          l,
          "serveStarted",
          () -> {
            ServeObserver o = l.serveStarted(serve);
            if (o != null && o != ServeObserver.NONE) {
              observers.add(o);
            }
          });
    }
    return observers.isEmpty() ? ServeObserver.NONE : new Guarded(List.copyOf(observers));
  }

  @Override
  public void debited(DebitResult debit) {
    each(listeners, "debited", l -> l.debited(debit));
  }

  @Override
  public void journalWritten(JournalWrite write) {
    each(listeners, "journalWritten", l -> l.journalWritten(write));
  }

  /** One serve's observers, each call guarded the same way. */
  private record Guarded(List<ServeObserver> observers) implements ServeObserver {
    @Override
    public void phase(ServePhase phase) {
      each(observers, "phase", o -> o.phase(phase));
    }

    @Override
    public void served(ServeResult result) {
      each(observers, "served", o -> o.served(result));
    }

    @Override
    public void refused(ServeException refusal) {
      each(observers, "refused", o -> o.refused(refusal));
    }

    @Override
    public void failed(Throwable failure) {
      each(observers, "failed", o -> o.failed(failure));
    }
  }
}
