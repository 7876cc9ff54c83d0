package org.meshjava.receipt;

import java.util.Objects;

/**
 * A receipt with the envelope that seals it. Returned by sealing and by verification; a {@code
 * SealedReceipt} from {@link Jcr1#open(Envelope)} has been verified.
 *
 * @param receipt the receipt
 * @param envelope its JCR-1 envelope
 */
public record SealedReceipt(MeshReceipt receipt, Envelope envelope) {
  /** Validates the pair. */
  public SealedReceipt {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(envelope, "envelope");
  }
}
