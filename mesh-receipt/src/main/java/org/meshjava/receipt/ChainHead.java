package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.Unsigned;

/**
 * Where a receipt chain stands: the sequence the next receipt takes and the content id of the last
 * envelope sealed (absent before the first). A restarted steward resumes from the head its journal
 * recorded (§6.3).
 *
 * <p>Immutable.
 *
 * @param nextSequence the next receipt's sequence
 * @param prev the last sealed envelope's content id; absent exactly when {@code nextSequence} is 0
 */
public record ChainHead(long nextSequence, Optional<ContentId> prev) {

  /** The head of an empty chain. */
  public static final ChainHead GENESIS = new ChainHead(0, Optional.empty());

  /**
   * Validates the head: it is the position the next receipt takes, so it obeys the same rule.
   *
   * @throws IllegalArgumentException as {@link ChainPosition}'s constructor: a negative sequence,
   *     or {@code prev} present at 0 or absent after it
   */
  public ChainHead {
    Objects.requireNonNull(prev, "prev");
    Unsigned.u64("nextSequence", nextSequence);
    next(nextSequence, prev);
  }

  /** The position the next receipt sealed on this chain takes. */
  public ChainPosition next() {
    return next(nextSequence, prev);
  }

  private static ChainPosition next(long nextSequence, Optional<ContentId> prev) {
    return new ChainPosition(nextSequence, prev);
  }

  /**
   * The head after {@code sealed}, the last receipt of the chain.
   *
   * @throws IllegalArgumentException if {@code sealed} is numbered {@link Long#MAX_VALUE}: the
   *     chain is full, since no sequence a {@code long} holds follows it (a log appends nothing
   *     then)
   */
  public static ChainHead after(SealedReceipt sealed) {
    long sequence = sealed.receipt().sequence();
    if (sequence == Long.MAX_VALUE) {
      throw new IllegalArgumentException(
          "the receipt chain is full: a receipt numbered "
              + sequence
              + " would leave no number for the next one");
    }
    return new ChainHead(sequence + 1, Optional.of(sealed.envelope().id()));
  }
}
