package org.meshjava.journal;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * A place in a journal: the number of records before it and the hash of the last of them (the
 * {@code prev} the record at this place carries), which pins the place to one history (§2.2). A
 * snapshot is bound to the position it covers.
 *
 * <p>Immutable.
 *
 * @param count how many records precede this place
 * @param lastHash BLAKE3 of the encoded record {@code count - 1}; absent exactly when {@code count}
 *     is 0
 * @param locator where the implementation found this place (the file journal: the byte offset in
 *     its live file), or -1; only a hint for finding it again quickly, never trusted: the record
 *     found there must have the right sequence and {@code prev}
 */
public record JournalPosition(long count, Optional<ContentId> lastHash, long locator) {

  /** The start of every journal. */
  public static final JournalPosition GENESIS = new JournalPosition(0, Optional.empty(), 0);

  /** Validates the position. */
  public JournalPosition {
    Objects.requireNonNull(lastHash, "lastHash");
    if (count < 0) {
      throw new IllegalArgumentException("count is non-negative: " + count);
    }
    if ((count == 0) != lastHash.isEmpty()) {
      throw new IllegalArgumentException("lastHash is absent exactly at count 0");
    }
    if (locator < -1) {
      throw new IllegalArgumentException("locator is -1 or an offset: " + locator);
    }
  }

  /** The same place without a locator hint. */
  public JournalPosition withoutLocator() {
    return new JournalPosition(count, lastHash, -1);
  }

  /** Whether this is the same place as {@code other}, locators aside. */
  public boolean samePlace(JournalPosition other) {
    return count == other.count && lastHash.equals(other.lastHash);
  }

  @Override
  public String toString() {
    return "position " + count + lastHash.map(h -> " (after " + h + ")").orElse(" (genesis)");
  }
}
