package org.meshjava.receipt;

import java.util.Objects;
import org.meshjava.core.cbor.CborMap;

/**
 * A receipt with the envelope that seals it. Returned by sealing and by verification; a {@code
 * SealedReceipt} from {@link Jcr1#open(Envelope)} has been verified.
 *
 * <p>It also carries the receipt's signed core, the canonical map the envelope's payload encodes:
 * sealing builds it to sign it and verification decodes it, and whoever shows the receipt (the HTTP
 * binding's receipt JSON, once per serve) reads it from here instead of building it again. Only
 * {@link Jcr1} hands in a core it built or decoded; any other caller pairs a receipt with its
 * envelope and the core is built from the receipt, so the carried core is always the receipt's own.
 * (A class, not a record: a record's every component is a public constructor argument, and a core
 * given beside a receipt could be another receipt's.)
 *
 * <p>Immutable: it may be handed to any thread.
 */
public final class SealedReceipt {
  private final MeshReceipt receipt;
  private final Envelope envelope;
  private final CborMap signedCore;

  /**
   * Pairs a receipt with its envelope, building the receipt's signed core.
   *
   * @param receipt the receipt
   * @param envelope its JCR-1 envelope
   */
  public SealedReceipt(MeshReceipt receipt, Envelope envelope) {
    this(receipt, envelope, Objects.requireNonNull(receipt, "receipt").toSignedCore());
  }

  /** For {@link Jcr1}, whose {@code signedCore} is the receipt's: the one it signed or decoded. */
  SealedReceipt(MeshReceipt receipt, Envelope envelope, CborMap signedCore) {
    this.receipt = Objects.requireNonNull(receipt, "receipt");
    this.envelope = Objects.requireNonNull(envelope, "envelope");
    this.signedCore = Objects.requireNonNull(signedCore, "signedCore");
  }

  /** The receipt. */
  public MeshReceipt receipt() {
    return receipt;
  }

  /** Its JCR-1 envelope. */
  public Envelope envelope() {
    return envelope;
  }

  /** The receipt's signed core ({@link MeshReceipt#toSignedCore()}), as sealed. */
  CborMap signedCore() {
    return signedCore;
  }

  /** Equal when the receipts and the envelopes are: the core follows from the receipt. */
  @Override
  public boolean equals(Object o) {
    return o instanceof SealedReceipt s && receipt.equals(s.receipt) && envelope.equals(s.envelope);
  }

  @Override
  public int hashCode() {
    return Objects.hash(receipt, envelope);
  }

  @Override
  public String toString() {
    return "SealedReceipt[receipt=" + receipt + ", envelope=" + envelope + "]";
  }
}
