package org.meshjava.receipt;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.internal.SignedCoreSink;

/**
 * A receipt with the envelope that seals it. Returned by sealing and by verification; a {@code
 * SealedReceipt} from {@link Jcr1#open(Envelope)} has been verified.
 *
 * <p>A receipt opened from an envelope also carries the signed core its payload decoded to, and
 * whoever shows the receipt (the HTTP binding's receipt JSON) reads that core as it was signed. A
 * receipt sealed here carries none: the seal writes the core's bytes straight from the receipt
 * ({@link SignedCoreBytes}), and the JSON view is written from the receipt in the same order, so no
 * map is built on a serve. Only {@link Jcr1} hands in a decoded core; any other caller pairs a
 * receipt with its envelope, so a carried core is always the receipt's own. (A class, not a record:
 * a record's every component is a public constructor argument, and a core given beside a receipt
 * could be another receipt's.)
 *
 * <p>Immutable: it may be handed to any thread.
 */
public final class SealedReceipt {
  private final MeshReceipt receipt;
  private final Envelope envelope;
  private final @Nullable CborMap decodedCore;

  /**
   * Pairs a receipt with its envelope.
   *
   * @param receipt the receipt
   * @param envelope its JCR-1 envelope
   */
  public SealedReceipt(MeshReceipt receipt, Envelope envelope) {
    this(receipt, envelope, null);
  }

  /** For {@link Jcr1#open}, whose {@code decodedCore} is the payload the receipt was read from. */
  SealedReceipt(MeshReceipt receipt, Envelope envelope, @Nullable CborMap decodedCore) {
    this.receipt = Objects.requireNonNull(receipt, "receipt");
    this.envelope = Objects.requireNonNull(envelope, "envelope");
    this.decodedCore = decodedCore;
  }

  /** The receipt. */
  public MeshReceipt receipt() {
    return receipt;
  }

  /** Its JCR-1 envelope. */
  public Envelope envelope() {
    return envelope;
  }

  /**
   * The receipt's signed core ({@link MeshReceipt#toSignedCore()}): the payload's, as opened, or
   * built from the receipt.
   */
  CborMap signedCore() {
    CborMap core = decodedCore;
    return core != null ? core : receipt.toSignedCore();
  }

  /**
   * Writes the receipt's signed core to {@code sink} in canonical key order: the opened payload's
   * entries as they were signed, or a sealed receipt's fields straight from the receipt.
   */
  <X extends Exception> void writeSignedCore(SignedCoreSink<X> sink) throws X {
    CborMap core = decodedCore;
    if (core == null) {
      SignedCore.write(receipt, sink);
      return;
    }
    for (CborMap.Entry e : core.entries()) {
      // A payload that opened as a receipt has text keys and only these three kinds of value
      // (SignedCore.decode refuses any other).
      String key = ((CborText) e.key()).value();
      switch (e.value()) {
        case CborInt(long v) -> sink.uint(key, v);
        case CborText(String v) -> sink.text(key, v);
        case CborBytes b -> sink.bytes(key, b.bytes());
        default ->
            throw new IllegalStateException(
                "an opened signed core holds " + e.value() + " at " + key);
      }
    }
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
