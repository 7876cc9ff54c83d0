package org.meshjava.receipt;

import java.util.Objects;
import org.meshjava.core.cbor.CborMap;

/**
 * A receipt with the envelope that seals it. Returned by sealing and by verification; a {@code
 * SealedReceipt} from {@link Jcr1#open(Envelope)} has been verified.
 *
 * <p>It also carries the receipt's signed core, the canonical map the envelope's payload encodes:
 * sealing builds it to sign it and verification decodes it, and whoever shows the receipt (the HTTP
 * binding's receipt JSON, once per serve) reads it from here instead of building it again.
 *
 * @param receipt the receipt
 * @param envelope its JCR-1 envelope
 * @param signedCore the receipt's signed core ({@link MeshReceipt#toSignedCore()}), as sealed
 */
public record SealedReceipt(MeshReceipt receipt, Envelope envelope, CborMap signedCore) {
  /** Validates the parts. */
  public SealedReceipt {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(envelope, "envelope");
    Objects.requireNonNull(signedCore, "signedCore");
  }

  /** Pairs a receipt with its envelope, building the receipt's signed core. */
  public SealedReceipt(MeshReceipt receipt, Envelope envelope) {
    this(receipt, envelope, Objects.requireNonNull(receipt, "receipt").toSignedCore());
  }
}
