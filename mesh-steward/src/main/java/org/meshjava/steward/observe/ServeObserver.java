package org.meshjava.steward.observe;

import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;

/**
 * Follows one serve: the steward reports each phase as it enters it, then exactly one outcome. A
 * phase ends where the next begins or the outcome is reported, so an observer that times phases
 * needs no other call. Phases after the one a serve stopped in are not reported.
 *
 * <p>Every method is called on the serving thread, in order, by one serve only; an observer needs
 * no locking for its own state. Methods should return quickly: the serve waits for them. What they
 * throw is logged and ignored.
 */
public interface ServeObserver {
  /** An observer that does nothing: what a listener returns for a serve it does not follow. */
  ServeObserver NONE = new ServeObserver() {};

  /** The serve enters {@code phase}, ending the one before. */
  default void phase(ServePhase phase) {}

  /**
   * The serve was sealed, journalled and is about to be handed out: {@code result} holds the
   * receipt (backend, energy and its provenance, counters, sequence) and its envelope.
   */
  default void served(ServeResult result) {}

  /**
   * The serve was refused or failed with {@code refusal} in the phase last reported (or before
   * routing if none was): nothing was sealed. A grant refusal is a {@link
   * org.meshjava.steward.GrantDeniedException} carrying its denial label.
   */
  default void refused(ServeException refusal) {}

  /**
   * The serve ended with an unchecked throwable: a bug in the steward or its plug-ins, never a
   * refusal the caller could expect. Nothing was sealed.
   */
  default void failed(Throwable failure) {}
}
