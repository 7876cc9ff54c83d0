package org.meshjava.core;

/**
 * Where an engine hands each output token as it produces it, so a caller can pass it on before the
 * serve completes (streaming). The sink also carries the caller's cancellation: {@link #accept}
 * answering {@code false} asks the engine to stop. Stopping is cooperative; an engine that stops
 * returns the tokens it produced so far as its result, and the steward meters, seals and journals
 * exactly those (the work done is never free).
 *
 * <p>Called on the engine's serving thread, in token order, once per output token at most: each
 * token is handed either on its own ({@link #accept}) or in a run ({@link #acceptRun}). A sink must
 * not throw; one that can no longer deliver answers {@code false}.
 */
@FunctionalInterface
public interface TokenSink {

  /** A sink that takes every token and never cancels: a serve that nobody streams. */
  TokenSink DISCARD = token -> true;

  /**
   * Takes the next output token.
   *
   * @param token the token id, an unsigned 32-bit value in an {@code int}'s bits
   * @return {@code true} to go on, {@code false} to ask the engine to stop after this token
   */
  boolean accept(int token);

  /**
   * Takes the next run of output tokens, which the engine received or produced together: an
   * upstream's stream delta, for one. A sink that passes text on should pass the run on as one
   * piece, since that is the unit its producer chose; an upstream's one-word delta handed over a
   * code point at a time would reach a client as one event per character.
   *
   * <p>The default hands the tokens to {@link #accept} one by one and answers {@code false} at the
   * first that does.
   *
   * @param run the tokens, in order; never empty
   * @return {@code true} to go on, {@code false} to ask the engine to stop after this run (whose
   *     tokens are then all produced, so the result holds them all)
   */
  default boolean acceptRun(TokenSequence run) {
    for (int i = 0; i < run.size(); i++) {
      if (!accept((int) run.get(i))) {
        return false;
      }
    }
    return true;
  }
}
