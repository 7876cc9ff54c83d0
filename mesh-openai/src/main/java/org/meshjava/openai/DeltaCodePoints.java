package org.meshjava.openai;

import java.util.Arrays;
import org.meshjava.core.TokenSequence;

/**
 * The code points of an upstream's streamed reply, gathered delta by delta: the ids an {@link
 * UpstreamEngine} commits to (§6.4), and the run each delta adds. They are the code points of the
 * deltas' text joined, as for the same reply whole. A JSON string may escape half of a surrogate
 * pair on its own, so a delta can end on a high surrogate whose other half opens the next delta;
 * that half waits for the next delta rather than becoming an id of its own, which the whole reply,
 * read as one string, would not have. Not thread-safe: one serve's thread uses it.
 */
final class DeltaCodePoints {
  private int[] ids = new int[256];
  private int n;

  /** A high surrogate that ended the last delta, waiting for its other half; empty if none. */
  private String held = "";

  /**
   * Appends {@code delta}'s code points and returns them, the run it adds; empty when it adds none
   * yet (a delta of a lone high surrogate).
   */
  TokenSequence add(String delta) {
    String text = held + delta;
    int end = text.length();
    boolean halfAtEnd = end > 0 && Character.isHighSurrogate(text.charAt(end - 1));
    held = halfAtEnd ? text.substring(end - 1) : "";
    return append(text.substring(0, halfAtEnd ? end - 1 : end));
  }

  /**
   * Appends a high surrogate still waiting once the stream has ended, as the whole reply would read
   * it (its own code point), and returns it; empty if none waits.
   */
  TokenSequence finish() {
    String rest = held;
    held = "";
    return append(rest);
  }

  /** All of the code points so far. */
  TokenSequence all() {
    return TokenSequence.of(Arrays.copyOf(ids, n));
  }

  private TokenSequence append(String text) {
    int[] run = text.codePoints().toArray();
    if (run.length > ids.length - n) {
      ids = Arrays.copyOf(ids, Math.max(Math.addExact(n, run.length), Math.multiplyExact(n, 2)));
    }
    System.arraycopy(run, 0, ids, n, run.length);
    n += run.length;
    return TokenSequence.of(run);
  }
}
