package org.meshjava.core;

/**
 * Where an engine hands each output token as it produces it, so a caller can pass it on before the
 * serve completes (streaming). The sink also carries the caller's cancellation: {@link #accept}
 * answering {@code false} asks the engine to stop. Stopping is cooperative; an engine that stops
 * returns the tokens it produced so far as its result, and the steward meters, seals and journals
 * exactly those (the work done is never free).
 *
 * <p>Called on the engine's serving thread, in token order, at most once per output token. A sink
 * must not throw; one that can no longer deliver answers {@code false}.
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
}
