package org.meshjava.core.crypto;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.digests.Blake3Digest;
import org.bouncycastle.crypto.params.Blake3Parameters;

/**
 * BLAKE3 in its three modes (hash, keyed hash, key derivation), backed by BouncyCastle. Every
 * content id, commitment and weights digest in mesh-java goes through this class, so the official
 * BLAKE3 vectors test all of them at once.
 *
 * <p>Static methods are thread-safe; a {@link Hasher} is not.
 */
public final class Blake3 {
  /** The default output length in bytes. */
  public static final int OUT_LEN = 32;

  private Blake3() {}

  /** Returns the 32-byte BLAKE3 hash of the concatenation of {@code parts}. */
  public static byte[] hash(byte[]... parts) {
    Hasher h = newHasher();
    for (byte[] p : parts) {
      h.update(p);
    }
    return h.finish();
  }

  /** Returns a streaming hasher in plain hash mode. */
  public static Hasher newHasher() {
    return new Hasher(new Blake3Digest(OUT_LEN * 8));
  }

  /**
   * Returns a streaming hasher in keyed mode.
   *
   * @param key exactly 32 bytes
   */
  public static Hasher newKeyedHasher(byte[] key) {
    if (key.length != 32) {
      throw new IllegalArgumentException("a BLAKE3 key is 32 bytes, got " + key.length);
    }
    Blake3Digest d = new Blake3Digest(OUT_LEN * 8);
    d.init(Blake3Parameters.key(key.clone()));
    return new Hasher(d);
  }

  /**
   * Returns a streaming hasher in key-derivation mode under the context string (BLAKE3's
   * {@code derive_key}).
   */
  public static Hasher newDeriveKeyHasher(String context) {
    Blake3Digest d = new Blake3Digest(OUT_LEN * 8);
    d.init(Blake3Parameters.context(context.getBytes(StandardCharsets.UTF_8)));
    return new Hasher(d);
  }

  /** Returns {@code derive_key(context, material)}, 32 bytes. */
  public static byte[] deriveKey(String context, byte[] material) {
    return newDeriveKeyHasher(context).update(material).finish();
  }

  /** Returns the keyed hash of {@code message}, 32 bytes. */
  public static byte[] keyedHash(byte[] key, byte[] message) {
    return newKeyedHasher(key).update(message).finish();
  }

  /** An incremental BLAKE3 computation. Not thread-safe; use once. */
  public static final class Hasher {
    private final Blake3Digest digest;

    private Hasher(Blake3Digest digest) {
      this.digest = digest;
    }

    /** Absorbs {@code bytes}. */
    public Hasher update(byte[] bytes) {
      digest.update(bytes, 0, bytes.length);
      return this;
    }

    /** Absorbs {@code len} bytes of {@code bytes} from {@code off}. */
    public Hasher update(byte[] bytes, int off, int len) {
      digest.update(bytes, off, len);
      return this;
    }

    /** Absorbs the rest of {@code in}, streaming, without holding it in memory. */
    public Hasher update(InputStream in) throws IOException {
      byte[] buf = new byte[1 << 16];
      int n;
      while ((n = in.read(buf)) > 0) {
        digest.update(buf, 0, n);
      }
      return this;
    }

    /** Returns the 32-byte output. */
    public byte[] finish() {
      byte[] out = new byte[OUT_LEN];
      digest.doFinal(out, 0);
      return out;
    }

    /** Returns {@code length} bytes of extended output. */
    public byte[] finish(int length) {
      byte[] out = new byte[length];
      digest.doFinal(out, 0, length);
      return out;
    }
  }
}
