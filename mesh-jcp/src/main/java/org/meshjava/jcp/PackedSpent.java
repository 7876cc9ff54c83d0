package org.meshjava.jcp;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import org.meshjava.core.ContentId;

/**
 * Spent (leaf, nonce) pairs held as one packed byte array, sorted, with no object per pair: the
 * form a journal snapshot stores them in (SPEC.md §60.8), so that a ledger restored from a snapshot
 * ({@link SpendLedger#restore}) answers "was this pair spent?" by a binary search over the bytes it
 * read instead of first building a map of a million entries. A read-only {@link List} of {@link
 * LedgerState.Spent} (an element is decoded when asked for), so a {@link LedgerState} can carry it
 * in place of a list of records. Immutable.
 *
 * <p>Each pair is {@value #BYTES} bytes: the leaf id (32), the nonce (16), and the instant it is
 * forgotten as seconds (8, signed big-endian) and nanoseconds (4, big-endian). Pairs are in
 * ascending order of leaf (unsigned bytes, as {@link GrantId#compareTo}) then nonce (signed bytes,
 * as {@link Arrays#compare(byte[], byte[])}), each pair once.
 *
 * <p>The bytes are a read-only buffer: an array of its own, or, through {@link #over}, a view of a
 * snapshot's bytes that a restart reads in place (a million pairs are 60 MB).
 */
public final class PackedSpent extends AbstractList<LedgerState.Spent> implements RandomAccess {
  /** Bytes per pair. */
  public static final int BYTES = ContentId.LENGTH + PresentationNonce.LENGTH + 8 + 4;

  private static final int KEY = ContentId.LENGTH + PresentationNonce.LENGTH;

  /** Each byte's top bit, eight bytes at a time (see {@link #compareKeys}). */
  private static final long SIGN_BITS = 0x8080_8080_8080_8080L;

  private static final long MIN_SECOND = Instant.MIN.getEpochSecond();
  private static final long MAX_SECOND = Instant.MAX.getEpochSecond();

  /** The pairs; read-only, position 0, never changed. */
  private final ByteBuffer packed;

  private final int size;

  /** The index of the pair forgotten first, -1 when empty, or -2 until it is looked for. */
  private int earliest = -2;

  private PackedSpent(ByteBuffer packed) {
    this.packed = packed;
    this.size = packed.limit() / BYTES;
  }

  private PackedSpent(byte[] packed) {
    this(ByteBuffer.wrap(packed).asReadOnlyBuffer());
  }

  /**
   * Pairs from their packed form (copied).
   *
   * @throws IllegalArgumentException if it is not a whole number of pairs, an instant is out of
   *     range, or the pairs are not in ascending order without repeats
   */
  public static PackedSpent of(byte[] packed) {
    return of(ByteBuffer.wrap(packed));
  }

  /**
   * Pairs from their packed form: the bytes from {@code packed}'s position to its limit, copied
   * once (a snapshot's section is read from a view of it, not first copied out). The buffer's
   * position and limit are left as they were.
   *
   * @throws IllegalArgumentException as {@link #of(byte[])}
   */
  public static PackedSpent of(ByteBuffer packed) {
    byte[] copy = new byte[packed.remaining()];
    packed.get(packed.position(), copy);
    return over(ByteBuffer.wrap(copy));
  }

  /**
   * Pairs whose packed form is the bytes from {@code packed}'s position to its limit, checked in
   * one pass and then read there, never copied: for a restart, whose snapshot's bytes are already
   * in memory and do not change. The caller must not change those bytes afterwards. The buffer's
   * position and limit are left as they were.
   *
   * @throws IllegalArgumentException as {@link #of(byte[])}
   */
  public static PackedSpent over(ByteBuffer packed) {
    int length = packed.remaining();
    if (length % BYTES != 0) {
      throw new IllegalArgumentException(
          "spent pairs are " + BYTES + " bytes each; " + length + " bytes are not");
    }
    PackedSpent p = new PackedSpent(packed.slice().asReadOnlyBuffer());
    ByteBuffer in = p.packed;
    long firstSeconds = Long.MAX_VALUE;
    int firstNanos = Integer.MAX_VALUE;
    int first = -1;
    for (int i = 0; i < p.size; i++) {
      long seconds = in.getLong(i * BYTES + KEY);
      int nanos = in.getInt(i * BYTES + KEY + 8);
      if (nanos < 0 || nanos > 999_999_999 || seconds < MIN_SECOND || seconds > MAX_SECOND) {
        throw new IllegalArgumentException("spent pair " + i + "'s instant is out of range");
      }
      // Found in the same pass, so a restore reads the bytes once (this is its per-pair cost).
      if (seconds < firstSeconds || (seconds == firstSeconds && nanos < firstNanos)) {
        firstSeconds = seconds;
        firstNanos = nanos;
        first = i;
      }
      if (i > 0 && compareKeys(in, (i - 1) * BYTES, in, i * BYTES) >= 0) {
        throw new IllegalArgumentException("spent pair " + i + " is not after the one before it");
      }
    }
    p.earliest = first;
    return p;
  }

  /** Pairs from records, in any order. */
  @SuppressWarnings("JavaInstantGetSecondsGetNano") // both halves of the instant are written
  public static PackedSpent of(List<LedgerState.Spent> pairs) {
    if (pairs instanceof PackedSpent p) {
      return p;
    }
    LedgerState.Spent[] sorted = pairs.toArray(new LedgerState.Spent[0]);
    Arrays.sort(sorted, PackedSpent::compare);
    ByteBuffer out = ByteBuffer.allocate(Math.multiplyExact(sorted.length, BYTES));
    for (int i = 0; i < sorted.length; i++) {
      LedgerState.Spent x = sorted[i];
      if (i > 0 && compare(sorted[i - 1], x) == 0) {
        throw new IllegalArgumentException("pair " + x.leaf() + "/" + x.nonce() + " twice");
      }
      out.put(x.leaf().contentId().bytes())
          .put(x.nonce().bytes())
          .putLong(x.until().getEpochSecond())
          .putInt(x.until().getNano());
    }
    return new PackedSpent(out.array());
  }

  /**
   * The pairs in their packed form, as a read-only view (position 0, limit the length) rather than
   * a copy: the bytes never change. For writing a snapshot of a million pairs (60 MB) without
   * copying them.
   */
  public ByteBuffer asReadOnlyBuffer() {
    return packed.duplicate();
  }

  /** The pairs in their packed form (a copy). */
  public byte[] packed() {
    byte[] out = new byte[packed.limit()];
    packed.get(0, out);
    return out;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public LedgerState.Spent get(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    int at = index * BYTES;
    byte[] leaf = new byte[ContentId.LENGTH];
    byte[] nonce = new byte[PresentationNonce.LENGTH];
    packed.get(at, leaf).get(at + ContentId.LENGTH, nonce);
    return new LedgerState.Spent(
        new GrantId(ContentId.fromDigest(leaf)), PresentationNonce.of(nonce), until(index));
  }

  /** The instant pair {@code index} is forgotten. */
  Instant until(int index) {
    return Instant.ofEpochSecond(
        packed.getLong(index * BYTES + KEY), packed.getInt(index * BYTES + KEY + 8));
  }

  /**
   * The earliest instant a pair here is forgotten ({@link Instant#MAX} when there is none), read
   * from the bytes without decoding the pairs.
   */
  Instant earliestUntil() {
    if (earliest != -2) {
      return earliest < 0 ? Instant.MAX : until(earliest);
    }
    ByteBuffer in = packed;
    long seconds = Long.MAX_VALUE;
    int nanos = Integer.MAX_VALUE;
    int first = -1;
    for (int i = 0; i < size; i++) {
      long s = in.getLong(i * BYTES + KEY);
      int n = in.getInt(i * BYTES + KEY + 8);
      if (s < seconds || (s == seconds && n < nanos)) {
        seconds = s;
        nanos = n;
        first = i;
      }
    }
    earliest = first; // idempotent: a race writes the same index
    return earliest < 0 ? Instant.MAX : until(earliest);
  }

  /**
   * The pairs of both, in order.
   *
   * @throws IllegalArgumentException if a pair is in both
   */
  static PackedSpent merge(PackedSpent a, PackedSpent b) {
    if (b.size == 0) {
      return a;
    }
    if (a.size == 0) {
      return b;
    }
    byte[] out = new byte[a.packed.limit() + b.packed.limit()];
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < a.size || j < b.size) {
      int c =
          i == a.size
              ? 1
              : j == b.size ? -1 : compareKeys(a.packed, i * BYTES, b.packed, j * BYTES);
      if (c == 0) {
        throw new IllegalArgumentException("spent pair " + a.get(i).leaf() + " twice");
      }
      if (c < 0) {
        a.packed.get(i++ * BYTES, out, k, BYTES);
      } else {
        b.packed.get(j++ * BYTES, out, k, BYTES);
      }
      k += BYTES;
    }
    return new PackedSpent(out);
  }

  /** The index of the pair (leaf, nonce), or -1 if it is not here; a binary search. */
  int indexOf(GrantId leaf, PresentationNonce nonce) {
    ByteBuffer key = ByteBuffer.allocate(KEY).put(leaf.contentId().bytes()).put(nonce.bytes());
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = compareKeys(packed, mid * BYTES, key, 0);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /**
   * Compares the keys at {@code at} in {@code a} and {@code bt} in {@code b}: the leaves as
   * unsigned bytes, then the nonces as signed bytes, eight bytes at a time (big-endian longs keep
   * the order of unsigned bytes; flipping each byte's top bit turns signed-byte order into
   * unsigned).
   */
  private static int compareKeys(ByteBuffer a, int at, ByteBuffer b, int bt) {
    for (int i = 0; i < KEY; i += 8) {
      long x = a.getLong(at + i);
      long y = b.getLong(bt + i);
      if (x != y) {
        if (i >= ContentId.LENGTH) {
          x ^= SIGN_BITS;
          y ^= SIGN_BITS;
        }
        return Long.compareUnsigned(x, y);
      }
    }
    return 0;
  }

  private static int compare(LedgerState.Spent x, LedgerState.Spent y) {
    int c = x.leaf().compareTo(y.leaf());
    return c != 0 ? c : Arrays.compare(x.nonce().bytes(), y.nonce().bytes());
  }
}
