package org.meshjava.journal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * The envelope id of every receipt a journal recorded, by chain sequence, dense from the first
 * recorded one: 32 raw bytes each in fixed-size chunks, with no object per receipt (about 32 MB per
 * million receipts). It is what a snapshot carries so that a restart can still answer for every
 * receipt ever sealed (the witness check, and the transparency log's proofs, §65) without the
 * records. Appends are in sequence order. Not thread-safe.
 */
public final class ReceiptIds {
  private static final int CHUNK = 4096;
  private static final int ID = ContentId.LENGTH;

  private final List<byte[]> chunks = new ArrayList<>();
  private long first = -1;
  private long size;

  /** An empty list. */
  public ReceiptIds() {}

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
   * limit (32 bytes each, in order), copied once into the list's chunks; the buffer's position and
   * limit are left as they were.
   *
   * @throws IllegalArgumentException as {@link #of(long, byte[])}
   */
  public static ReceiptIds of(long first, ByteBuffer packed) {
    int length = packed.remaining();
    if (length % ID != 0 || first < -1 || (first < 0 && length > 0)) {
      throw new IllegalArgumentException("receipt ids are 32 bytes each, after a first sequence");
    }
    ReceiptIds ids = new ReceiptIds();
    ids.first = first;
    for (int at = 0; at < length; at += CHUNK * ID) {
      byte[] chunk = new byte[CHUNK * ID];
      packed.get(packed.position() + at, chunk, 0, Math.min(CHUNK * ID, length - at));
      ids.chunks.add(chunk);
    }
    ids.size = length / ID;
    return ids;
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
    int chunk = (int) (size / CHUNK);
    if (chunk == chunks.size()) {
      chunks.add(new byte[CHUNK * ID]);
    }
    System.arraycopy(id.bytes(), 0, chunks.get(chunk), (int) (size % CHUNK) * ID, ID);
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
    byte[] c = chunks.get((int) (slot / CHUNK));
    int at = (int) (slot % CHUNK) * ID;
    return Optional.of(ContentId.fromDigest(Arrays.copyOfRange(c, at, at + ID)));
  }

  /** Every id, packed in sequence order (32 bytes each). */
  public byte[] packed() {
    byte[] out = new byte[Math.toIntExact(size * ID)];
    for (int i = 0; i < chunks.size(); i++) {
      int at = i * CHUNK * ID;
      System.arraycopy(chunks.get(i), 0, out, at, Math.min(CHUNK * ID, out.length - at));
    }
    return out;
  }

  /** A copy (chunk by chunk: a million ids are 32 MB, copied once rather than packed first). */
  public ReceiptIds copy() {
    ReceiptIds c = new ReceiptIds();
    c.first = first;
    c.size = size;
    for (byte[] chunk : chunks) {
      c.chunks.add(chunk.clone());
    }
    return c;
  }
}
