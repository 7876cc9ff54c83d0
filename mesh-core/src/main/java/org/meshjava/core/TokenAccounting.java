package org.meshjava.core;

/**
 * Whose count a serve's {@code tokens_out} is, and so what it says about the output ids the
 * receipt's output commitment covers (§5, §6.4).
 *
 * <p>An engine that tokenizes on this host emits the ids it counts, one for one. An engine whose
 * work runs elsewhere (an OpenAI-compatible upstream) never sees the remote model's ids: it commits
 * to what it can hold, the reply's text as code points, and takes the count from the remote side,
 * whose tokens are usually longer. Forcing the two numbers to agree would mean either counting
 * characters as tokens (over-billing the grant and misreporting the wedge metric) or cutting the
 * reply at the remote's count of characters. So an engine declares which case it is ({@link
 * ServingEngine#tokenAccounting()}), each {@link EngineResult} says which case produced it, and the
 * steward holds the result to the declaration.
 */
public enum TokenAccounting {
  /**
   * {@code tokens_out} is the number of output ids the engine emitted, which are the ids the output
   * commitment covers: the two agree exactly. Every engine that tokenizes locally.
   */
  EMITTED,

  /**
   * {@code tokens_out} (and {@code tokens_in}) are the remote server's own counts from its {@code
   * usage} report. The committed ids are the reply's Unicode code points, whose number is usually
   * larger: a disclosed output of n code points may belong to a receipt with a smaller {@code
   * tokens_out}.
   */
  REMOTE_USAGE,

  /**
   * A remote serve whose stream the caller stopped before the remote's usage report arrived: {@code
   * tokens_out} is the number of non-empty deltas received, of content or of a reasoning model's
   * thinking (servers send one token per delta) and {@code tokens_in} the number of payload ids the
   * engine was handed. A declared fallback, never used for a stream that ran to its end (that needs
   * the remote's report).
   */
  REMOTE_STREAM_DELTAS;

  /** Whether an engine declaring this accounting may return a result accounted as {@code used}. */
  public boolean admits(TokenAccounting used) {
    return this == used || (this == REMOTE_USAGE && used == REMOTE_STREAM_DELTAS);
  }
}
