package org.meshjava.core.cbor;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Items that {@link CanonicalCbor#decode(byte[], CborLimits, CborItemMemo)} read before, by their
 * exact bytes, so that the same bytes met again at the same depth are taken whole instead of being
 * read into values again.
 *
 * <p>Why: a caller repeats parts of its input from request to request (a grant chain's envelopes, a
 * few hundred bytes each, presented again with every request), and reading them into values is most
 * of the work of reading the input.
 *
 * <p>Why it is sound: an item is taken only where the input, from the item's first byte, holds
 * exactly the bytes of one held item, and every held item was read in full (all canonical rules
 * checked) from those same bytes. A CBOR item ends where its own heads say it does, so the decode
 * without a memo would read those bytes as the same item, to the same value, and go on from the
 * same offset. Bytes that differ in any way (another encoding of the same value included, which the
 * decoder refuses) are read in full, and refused or offered as without a memo. Items that would
 * take the decode past its {@link CborLimits} are read in full too, so a refusal names the same
 * rule and offset with or without a memo.
 *
 * <p>Bounded so hostile input cannot grow it: at most {@code limit} items of at most {@code
 * maxEncoded} bytes and {@code maxItems} CBOR items each, cleared when full; one item is held per
 * hash code of its bytes, the latest, so bytes chosen to share a hash code cost one comparison, not
 * one per item. Thread-safe.
 */
public final class CborItemMemo {
  /** An item's bytes, its value, how many items it counts and how deep it nests (1 for a leaf). */
  record Held(byte[] encoding, CborValue value, int items, int depth) {}

  private final int depth;
  private final int maxEncoded;
  private final int maxItems;
  private final int limit;
  private final ConcurrentHashMap<Integer, Held> held = new ConcurrentHashMap<>();

  /**
   * Makes an empty memo.
   *
   * @param depth the nesting depth of the items it holds, 1 for the whole input
   * @param maxEncoded the largest item kept, in bytes
   * @param maxItems the most CBOR items in an item kept (maps, arrays, and what they hold)
   * @param limit the most items held; it is cleared when full
   * @throws IllegalArgumentException if any is below 1
   */
  public CborItemMemo(int depth, int maxEncoded, int maxItems, int limit) {
    if (depth < 1 || maxEncoded < 1 || maxItems < 1 || limit < 1) {
      throw new IllegalArgumentException(
          "depth, maxEncoded, maxItems and limit must be at least 1");
    }
    this.depth = depth;
    this.maxEncoded = maxEncoded;
    this.maxItems = maxItems;
    this.limit = limit;
  }

  /** The nesting depth of the items held, 1 for the whole input. */
  public int depth() {
    return depth;
  }

  /** How many items are held. */
  public int size() {
    return held.size();
  }

  /** Forgets every item. */
  public void clear() {
    held.clear();
  }

  /**
   * The held item whose bytes are exactly {@code in}'s from {@code from} to where that item ends,
   * or null. Reads only the heads of what lies there to find where it would end; nothing is
   * checked, since only bytes equal to an item read in full are taken.
   */
  @Nullable Held find(ByteBuffer in, int from, int end) {
    // Not from + maxEncoded, which overflows for a memo that keeps items of any size.
    int to = extent(in, from, from + Math.min(end - from, maxEncoded));
    if (to < 0) {
      return null;
    }
    Held h = held.get(hash(in, from, to));
    if (h == null || h.encoding().length != to - from) {
      return null;
    }
    return in.slice(from, to - from).equals(ByteBuffer.wrap(h.encoding())) ? h : null;
  }

  /** Keeps {@code value}, read in full from {@code in}'s bytes {@code from} to {@code to}. */
  void offer(ByteBuffer in, int from, int to, CborValue value, int items, int itemDepth) {
    if (to - from > maxEncoded || items > maxItems) {
      return;
    }
    byte[] encoding = new byte[to - from];
    in.get(from, encoding);
    if (held.size() >= limit) {
      held.clear();
    }
    held.put(hash(in, from, to), new Held(encoding, value, items, itemDepth));
  }

  private static int hash(ByteBuffer in, int from, int to) {
    int h = 1;
    for (int i = from; i < to; i++) {
      h = 31 * h + in.get(i);
    }
    return h;
  }

  /**
   * Where the item starting at {@code from} would end, by its heads alone, or -1 if that is not
   * before {@code end} or a head is one no canonical item has.
   */
  private static int extent(ByteBuffer in, int from, int end) {
    int p = from;
    long pending = 1;
    while (pending > 0) {
      if (p >= end) {
        return -1;
      }
      int initial = in.get(p++) & 0xFF;
      int major = initial >>> 5;
      int info = initial & 0x1F;
      long arg;
      if (info < 24) {
        arg = info;
      } else if (info < 28) {
        int width = 1 << (info - 24);
        if (end - p < width) {
          return -1;
        }
        arg = 0;
        for (int i = 0; i < width; i++) {
          arg = (arg << 8) | (in.get(p++) & 0xFF);
        }
      } else {
        return -1;
      }
      pending--;
      boolean length =
          major == CanonicalCbor.MAJOR_BYTES
              || major == CanonicalCbor.MAJOR_TEXT
              || major == CanonicalCbor.MAJOR_ARRAY
              || major == CanonicalCbor.MAJOR_MAP;
      if (length && (arg < 0 || arg > end - p)) {
        return -1;
      }
      switch (major) {
        case CanonicalCbor.MAJOR_BYTES, CanonicalCbor.MAJOR_TEXT -> p += (int) arg;
        case CanonicalCbor.MAJOR_ARRAY -> pending += arg;
        case CanonicalCbor.MAJOR_MAP -> pending += 2 * arg;
        case CanonicalCbor.MAJOR_TAG -> pending += 1;
        case CanonicalCbor.MAJOR_SIMPLE -> {
          return -1;
        }
        default -> {}
      }
      if (pending > end - p) {
        return -1;
      }
    }
    return p;
  }
}
