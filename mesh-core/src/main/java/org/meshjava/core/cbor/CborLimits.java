package org.meshjava.core.cbor;

/**
 * Bounds the decoder enforces so hostile input cannot exhaust the stack or the heap.
 *
 * @param maxDepth the deepest nesting of arrays, maps and tags accepted (the top level is 1), at
 *     most {@link #MAX_DEPTH}
 * @param maxInputBytes the largest input accepted
 * @param maxItems the largest number of items (every integer, string, array, map entry and tag)
 *     accepted in one input
 */
public record CborLimits(int maxDepth, int maxInputBytes, int maxItems) {

  /** Generous defaults for receipts, grants and journal entries: depth 32, 16 MiB, 1M items. */
  public static final CborLimits DEFAULT = new CborLimits(32, 16 << 20, 1 << 20);

  /**
   * The deepest nesting any caller may configure. The decoder recurses once per level, so the depth
   * limit is what keeps a hostile input from overflowing the stack; this ceiling keeps that true on
   * a thread with a small stack (256 KiB is tested).
   */
  public static final int MAX_DEPTH = 128;

  /** Validates the limits. */
  public CborLimits {
    if (maxDepth < 1 || maxInputBytes < 1 || maxItems < 1) {
      throw new IllegalArgumentException("limits must be positive");
    }
    if (maxDepth > MAX_DEPTH) {
      throw new IllegalArgumentException(
          "maxDepth "
              + maxDepth
              + " exceeds "
              + MAX_DEPTH
              + ", beyond which the stack may overflow");
    }
  }
}
