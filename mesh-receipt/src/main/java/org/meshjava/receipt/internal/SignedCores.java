package org.meshjava.receipt.internal;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;

/**
 * A receipt's signed core (§6.1) in the CBOR value model, for the modules that work in that model:
 * the HTTP binding's JSON view of a receipt, the conformance pack, the steward's tests. The API
 * gives the core only as bytes ({@link MeshReceipt#encodeSignedCore()}), since the value model is
 * not API; the encoder and decoder stay package-private beside the receipt, which hands them here
 * when it is first used (as the JDK's own packages share internals), so the receipt module has one
 * encoding of the core.
 */
public final class SignedCores {
  /** What the receipt package hands in. */
  public interface Access {
    /** The receipt's signed core. */
    CborMap encode(MeshReceipt receipt);

    /** The core the receipt was sealed or opened with, not built again. */
    CborMap of(SealedReceipt sealed);

    /** The receipt a core holds, with every rule opening an envelope applies to its payload. */
    MeshReceipt decode(CborValue core) throws ReceiptException;

    /** Writes the core the sealed receipt carries, or its receipt's, in canonical key order. */
    <X extends Exception> void write(SealedReceipt sealed, SignedCoreSink<X> sink) throws X;
  }

  private static volatile @Nullable Access access;

  private SignedCores() {}

  /**
   * Hands in the receipt package's encoder and decoder; called once, as {@link MeshReceipt} is
   * initialised.
   *
   * @throws IllegalStateException if they were handed in already
   */
  public static synchronized void install(Access a) {
    if (access != null) {
      throw new IllegalStateException("the signed core's access is installed already");
    }
    access = Objects.requireNonNull(a, "access");
  }

  /** Returns {@code receipt}'s signed core. */
  public static CborMap encode(MeshReceipt receipt) {
    return access().encode(receipt);
  }

  /** Returns the signed core a sealed receipt carries: the one it was sealed or opened with. */
  public static CborMap of(SealedReceipt sealed) {
    return access().of(sealed);
  }

  /**
   * Writes a sealed receipt's signed core to {@code sink} field by field in canonical key order,
   * without building it as a map: the entries {@link #of} would hold, in the same order.
   */
  public static <X extends Exception> void write(SealedReceipt sealed, SignedCoreSink<X> sink)
      throws X {
    access().write(sealed, sink);
  }

  /**
   * Reads a receipt from its signed core.
   *
   * @throws ReceiptException if {@code core} is not the signed core of a valid receipt
   */
  public static MeshReceipt decode(CborValue core) throws ReceiptException {
    return access().decode(core);
  }

  private static Access access() {
    Access a = access;
    if (a != null) {
      return a;
    }
    // No receipt has been made yet in this JVM (a decode comes first): initialise the class that
    // installs the access.
    try {
      Class.forName(MeshReceipt.class.getName(), true, MeshReceipt.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the receipt module is incomplete", e);
    }
    return Objects.requireNonNull(access, "the signed core's access");
  }
}
