package org.meshjava.steward;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.journal.ReceiptIds;

/**
 * The envelope id of every receipt the journal recorded, by sequence: what {@link Steward#witness}
 * checks a shown receipt against when the transparency log is off (with the log on, the log's leaf
 * answers and no index is kept). Sequences are dense from the first recorded one.
 *
 * <p>Design note. The receipts recorded before the start, and later those a snapshot covers, are
 * read from a {@link ReceiptIds} of their own ({@link #adopt}: a snapshot's ids, read where its
 * file is mapped), never copied; the ids put since are kept as 32 raw bytes and a presence byte
 * each, in fixed-size chunks by sequence (no per-entry objects), since concurrent serves record
 * them out of order. A chunk wholly covered by the saved ids is dropped. Thread-safe.
 */
final class SealedIndex {
  private static final int CHUNK = 4096;
  private static final int ID = ContentId.LENGTH;

  /** Chunk {@code c} holds sequences {@code base + c * CHUNK ..}; null when wholly saved. */
  private final List<byte @Nullable []> chunks = new ArrayList<>();

  private final long base;

  /** The ids of sequences {@code base .. savedEnd - 1}, read here; this index's own copy. */
  private ReceiptIds saved;

  private long savedEnd;

  /**
   * @param recovered the receipts the journal recorded, by sequence; read, not copied (see {@link
   *     ReceiptIds#copy})
   * @param next the sequence the steward's next receipt takes; every later put is at least this
   */
  SealedIndex(ReceiptIds recovered, long next) {
    // Receipts are recorded out of order by concurrent serves, so the base is fixed up front.
    base = recovered.first() >= 0 ? recovered.first() : next;
    saved = recovered.copy();
    savedEnd = base + recovered.size();
  }

  synchronized void put(long sequence, ContentId envelopeId) {
    if (sequence < base) {
      throw new IllegalStateException(
          "receipt " + sequence + " precedes the first recorded " + base);
    }
    if (sequence < savedEnd) {
      return; // already held, by the saved ids
    }
    long slot = sequence - base;
    int c = Math.toIntExact(slot / CHUNK);
    while (chunks.size() <= c) {
      chunks.add(null);
    }
    byte[] chunk = chunks.get(c);
    if (chunk == null) {
      chunk = new byte[CHUNK * (ID + 1)];
      chunks.set(c, chunk);
    }
    int at = (int) (slot % CHUNK) * (ID + 1);
    System.arraycopy(envelopeId.bytes(), 0, chunk, at, ID);
    chunk[at + ID] = 1; // present
  }

  synchronized Optional<ContentId> get(long sequence) {
    if (sequence < base) {
      return Optional.empty();
    }
    if (sequence < savedEnd) {
      return saved.get(sequence);
    }
    long slot = sequence - base;
    long c = slot / CHUNK;
    if (c >= chunks.size()) {
      return Optional.empty();
    }
    byte[] chunk = chunks.get((int) c);
    int at = (int) (slot % CHUNK) * (ID + 1);
    if (chunk == null || chunk[at + ID] == 0) {
      return Optional.empty();
    }
    return Optional.of(ContentId.fromDigest(Arrays.copyOfRange(chunk, at, at + ID)));
  }

  /**
   * Reads the ids {@code ids} holds from there from now on and drops the chunks they cover: {@code
   * ids} is this index's own (nothing else adds to it) and must start at its first receipt, hold at
   * least the ids already saved, and agree with it on its last one; otherwise nothing changes.
   *
   * @return whether the ids were taken
   */
  synchronized boolean adopt(ReceiptIds ids) {
    long end = ids.first() + ids.size();
    if (ids.first() != base || end < savedEnd) {
      return false;
    }
    if (ids.size() > 0 && !get(end - 1).equals(ids.get(end - 1))) {
      return false;
    }
    saved = ids;
    savedEnd = end;
    for (int c = 0; c < chunks.size(); c++) {
      if ((long) (c + 1) * CHUNK <= end - base) {
        chunks.set(c, null);
      }
    }
    return true;
  }

  /** The bytes of ids this index keeps on the heap, its saved ids aside; for tests. */
  synchronized long heapBytes() {
    return chunks.stream().filter(c -> c != null).count() * CHUNK * (ID + 1);
  }
}
