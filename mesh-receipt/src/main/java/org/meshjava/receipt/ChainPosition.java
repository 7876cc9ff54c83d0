package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.Unsigned;

/**
 * Where a receipt stands in its steward's hash chain (§6.3): its sequence, from 0, and the content
 * id of the envelope before it, which only the first receipt lacks. The steward's receipt log
 * stamps it.
 *
 * @param sequence position in the chain, from 0
 * @param prev content id of the previous envelope; absent exactly at sequence 0
 */
public record ChainPosition(long sequence, Optional<ContentId> prev) {
  /**
   * Validates the coupling.
   *
   * @throws IllegalArgumentException if the sequence is negative, or {@code prev} is present at 0
   *     or absent after it
   */
  public ChainPosition {
    Objects.requireNonNull(prev, "prev");
    Unsigned.u64("sequence", sequence);
    if ((sequence == 0) != prev.isEmpty()) {
      throw new IllegalArgumentException(
          "prev is absent exactly at sequence 0 (§6.3); sequence "
              + sequence
              + (prev.isEmpty() ? " has no prev" : " has a prev"));
    }
  }
}
