package org.meshjava.steward;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.journal.ReceiptIds;

/**
 * The envelope id of every receipt the journal recorded, by sequence: what {@link Steward#witness}
 * checks a shown receipt against. Sequences are dense from the first recorded one, so ids are kept
 * as 32 raw bytes each in fixed-size chunks (about 32 MB per million receipts, no per-entry
 * objects). Thread-safe.
 */
final class SealedIndex {
  private static final int CHUNK = 4096;
  private static final int ID = ContentId.LENGTH;

  private final List<byte[]> chunks = new ArrayList<>();
  private final long base;

  /**
   * @param recovered the receipts the journal recorded, by sequence
   * @param next the sequence the steward's next receipt takes; every later put is at least this
   */
  SealedIndex(ReceiptIds recovered, long next) {
    // Receipts are recorded out of order by concurrent serves, so the base is fixed up front.
    base = recovered.first() >= 0 ? recovered.first() : next;
    for (long s = base; s < base + recovered.size(); s++) {
      put(s, recovered.get(s).orElseThrow());
    }
  }

  synchronized void put(long sequence, ContentId envelopeId) {
    if (sequence < base) {
      throw new IllegalStateException(
          "receipt " + sequence + " precedes the first recorded " + base);
    }
    long slot = sequence - base;
    int chunk = Math.toIntExact(slot / CHUNK);
    while (chunks.size() <= chunk) {
      chunks.add(new byte[CHUNK * (ID + 1)]);
    }
    byte[] c = chunks.get(chunk);
    int at = (int) (slot % CHUNK) * (ID + 1);
    System.arraycopy(envelopeId.bytes(), 0, c, at, ID);
    c[at + ID] = 1; // present
  }

  synchronized Optional<ContentId> get(long sequence) {
    if (sequence < base) {
      return Optional.empty();
    }
    long slot = sequence - base;
    long chunk = slot / CHUNK;
    if (chunk >= chunks.size()) {
      return Optional.empty();
    }
    byte[] c = chunks.get((int) chunk);
    int at = (int) (slot % CHUNK) * (ID + 1);
    if (c[at + ID] == 0) {
      return Optional.empty();
    }
    return Optional.of(ContentId.fromDigest(Arrays.copyOfRange(c, at, at + ID)));
  }
}
