package org.meshjava.journal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * The envelope id of every receipt a journal recorded, by chain sequence, dense from the first
 * recorded one: 32 raw bytes each, with no object per receipt (about 32 MB per million receipts).
 * It is what a snapshot carries so that a restart can still answer for every receipt ever sealed
 * (the witness check, and the transparency log's proofs, §65) without the records. Appends are in
 * sequence order. Not thread-safe.
 *
 * <p>Design note. The ids are a read-only base (the ids a restart read from its snapshot, which may
 * be a view of the snapshot's bytes: see {@link #over}) followed by fixed-size chunks for the ids
 * appended since. Only the last chunk is ever written, so a {@link #copy()} shares the base and
 * every full chunk and copies that one chunk: a restart copies its state once without copying a
 * million ids.
 */
public final class ReceiptIds {
  private static final int CHUNK = 4096;
  private static final int ID = ContentId.LENGTH;

  private static final ByteBuffer NONE = ByteBuffer.allocate(0).asReadOnlyBuffer();

  /** The ids of the first {@code baseSize} receipts; read-only, never written. */
  private final ByteBuffer base;

  private final long baseSize;

  /** The ids after the base, {@value #CHUNK} to a chunk; only the last chunk is ever written. */
  private final List<byte[]> chunks = new ArrayList<>();

  private long first = -1;
  private long size;

  /** An empty list. */
  public ReceiptIds() {
    this(NONE);
  }

  private ReceiptIds(ByteBuffer base) {
    this.base = base;
    this.baseSize = base.capacity() / ID;
  }

  /**
   * A list starting at receipt {@code first} with {@code packed} ids (32 bytes each, in order).
   *
   * @throws IllegalArgumentException if {@code packed} is not a whole number of ids
   */
  public static ReceiptIds of(long first, byte[] packed) {
    return of(first, ByteBuffer.wrap(packed));
  }

  /**
   * A list starting at receipt {@code first} with the ids from {@code packed}'s position to its
   * limit (32 bytes each, in order), copied once; the buffer's position and limit are left as they
   * were.
   *
   * @throws IllegalArgumentException as {@link #of(long, byte[])}
   */
  public static ReceiptIds of(long first, ByteBuffer packed) {
    check(first, packed.remaining());
    byte[] copy = new byte[packed.remaining()];
    packed.get(packed.position(), copy);
    return over(first, ByteBuffer.wrap(copy));
  }

  /**
   * A list starting at receipt {@code first} whose ids are the bytes from {@code packed}'s position
   * to its limit, read there and never copied: for a restart, whose snapshot's bytes (a million ids
   * are 32 MB) are already in memory and do not change. The caller must not change those bytes
   * afterwards; ids appended later are kept apart from them. The buffer's position and limit are
   * left as they were.
   *
   * @throws IllegalArgumentException as {@link #of(long, byte[])}
   */
  public static ReceiptIds over(long first, ByteBuffer packed) {
    check(first, packed.remaining());
    ReceiptIds ids = new ReceiptIds(packed.slice().asReadOnlyBuffer());
    ids.first = first;
    ids.size = ids.baseSize;
    return ids;
  }

  private static void check(long first, int length) {
    if (length % ID != 0 || first < -1 || (first < 0 && length > 0)) {
      throw new IllegalArgumentException("receipt ids are 32 bytes each, after a first sequence");
    }
  }

  /**
   * Appends receipt {@code sequence}'s id.
   *
   * @throws IllegalArgumentException unless {@code sequence} follows the last one
   */
  public void add(long sequence, ContentId id) {
    if (first < 0) {
      first = sequence;
    } else if (sequence != first + size) {
      throw new IllegalArgumentException(
          "receipt " + sequence + " where " + (first + size) + " comes next");
    }
    long slot = size - baseSize;
    int chunk = (int) (slot / CHUNK);
    if (chunk == chunks.size()) {
      chunks.add(new byte[CHUNK * ID]);
    }
    System.arraycopy(id.bytes(), 0, chunks.get(chunk), (int) (slot % CHUNK) * ID, ID);
    size++;
  }

  /** The first recorded receipt's sequence, or -1 when none is recorded. */
  public long first() {
    return first;
  }

  /** How many receipts are recorded. */
  public long size() {
    return size;
  }

  /** Receipt {@code sequence}'s envelope id, if recorded. */
  public Optional<ContentId> get(long sequence) {
    if (first < 0 || sequence < first || sequence >= first + size) {
      return Optional.empty();
    }
    long slot = sequence - first;
    byte[] id = new byte[ID];
    if (slot < baseSize) {
      base.get(Math.toIntExact(slot * ID), id);
    } else {
      slot -= baseSize;
      System.arraycopy(chunks.get((int) (slot / CHUNK)), (int) (slot % CHUNK) * ID, id, 0, ID);
    }
    return Optional.of(ContentId.fromDigest(id));
  }

  /** Every id, packed in sequence order (32 bytes each). */
  public byte[] packed() {
    byte[] out = new byte[Math.toIntExact(size * ID)];
    int baseBytes = Math.toIntExact(baseSize * ID);
    base.get(0, out, 0, baseBytes);
    for (int i = 0; i < chunks.size(); i++) {
      int at = baseBytes + i * CHUNK * ID;
      System.arraycopy(chunks.get(i), 0, out, at, Math.min(CHUNK * ID, out.length - at));
    }
    return out;
  }

  /**
   * A list of its own with the same ids. The base and every full chunk are shared, since they are
   * never written again; the last, partly filled chunk is copied.
   */
  public ReceiptIds copy() {
    ReceiptIds c = new ReceiptIds(base);
    c.first = first;
    c.size = size;
    long full = (size - baseSize) / CHUNK;
    for (int i = 0; i < chunks.size(); i++) {
      c.chunks.add(i < full ? chunks.get(i) : chunks.get(i).clone());
    }
    return c;
  }
}
