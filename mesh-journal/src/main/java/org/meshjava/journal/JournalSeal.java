package org.meshjava.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.FixedBytes;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.crypto.VerificationKey;

/**
 * The steward's Ed25519 signature over the place of a {@code Checkpoint} record in the journal
 * (SPEC.md §65, "The journal seal"): its sequence and the hash of the record before it. The
 * checkpoint note commits only to receipt envelope ids; the seal commits to every journal record
 * before the checkpoint, so a record edited and the chain re-hashed changes the {@code prev} the
 * seal was made over, and the seal no longer verifies without the steward's key.
 *
 * <p>Exactly one of two forms: {@link Signed}, as recorded and read back, or {@link ToSign}, which
 * a caller hands to {@link Journal#enqueue}: the journal signs it for the place it fixes, under its
 * own lock, so the seal names the record's real sequence and {@code prev} even while other records
 * are appended concurrently.
 *
 * <p>Both forms are immutable.
 */
public sealed interface JournalSeal permits JournalSeal.Signed, JournalSeal.ToSign {

  /** The domain separation prefix of the signed message. */
  String DOMAIN = "mesh/1 journal seal\0";

  /** The length of a seal's signature, bytes. */
  int SIGNATURE_LENGTH = 64;

  /**
   * Returns the message a seal signs: {@link #DOMAIN} (UTF-8), the record's sequence as a
   * big-endian u64, and the 32-byte hash of the record before it (32 zero bytes for record 0, which
   * has none).
   */
  static byte[] message(long seq, Optional<ContentId> prev) {
    byte[] domain = DOMAIN.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(domain.length + Long.BYTES + ContentId.LENGTH);
    b.put(domain).putLong(seq);
    b.put(prev.map(ContentId::bytes).orElseGet(() -> new byte[ContentId.LENGTH]));
    return b.array();
  }

  /** Returns a seal the journal signs with {@code key} when it places the record. */
  static JournalSeal by(SigningKey key) {
    return new ToSign(key);
  }

  /**
   * A seal made: the 64-byte Ed25519 signature over {@link #message}. Seals are equal when their
   * signatures are; the signature is copied in and out.
   */
  final class Signed extends FixedBytes implements JournalSeal {
    /**
     * Wraps a signature.
     *
     * @throws IllegalArgumentException if it is not {@link #SIGNATURE_LENGTH} bytes
     */
    public Signed(byte[] signature) {
      super(Objects.requireNonNull(signature, "signature"), SIGNATURE_LENGTH, "a journal seal");
    }

    /** Returns a copy of the signature. */
    public byte[] signature() {
      return bytes();
    }

    /**
     * Checks the seal against the record's actual place.
     *
     * @return whether it verifies under {@code key}
     */
    public boolean verifies(VerificationKey key, long seq, Optional<ContentId> prev) {
      try {
        key.verify(message(seq, prev), unsharedBytes());
        return true;
      } catch (org.meshjava.core.crypto.SignatureException e) {
        return false;
      }
    }

    /** Returns {@code Signed[}, the signature's hex, {@code ]}. */
    @Override
    public String toString() {
      return "Signed[" + hex() + "]";
    }
  }

  /**
   * A seal still to be made by the journal for the place it gives the record; never encoded.
   *
   * @param key the steward's key
   */
  record ToSign(SigningKey key) implements JournalSeal {
    /** Validates the key. */
    public ToSign {
      Objects.requireNonNull(key, "key");
    }

    /** Signs the seal for record {@code seq} following {@code prev}. */
    public Signed sign(long seq, Optional<ContentId> prev) {
      return new Signed(key.sign(message(seq, prev)));
    }
  }
}
