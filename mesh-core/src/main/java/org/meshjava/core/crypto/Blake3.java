package org.meshjava.core.crypto;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.meshjava.core.crypto.internal.Blake3Compression;
import org.meshjava.core.crypto.internal.Blake3Large;
import org.meshjava.core.crypto.internal.ScalarChunkKernel;

/**
 * BLAKE3 in its three modes (hash, keyed hash, key derivation), for short inputs: content ids,
 * commitments, envelopes. Every one of them goes through this class, so the official BLAKE3 vectors
 * test all of them at once. Output is standard BLAKE3, byte for byte.
 *
 * <p>It runs the large-input implementation's code ({@code Blake3Large} in {@code
 * org.meshjava.core.crypto.internal}, not part of the API) on its scalar kernel: never the Vector
 * API, so it needs no JVM flag and starts no thread. That measured 15-30% faster than
 * BouncyCastle's BLAKE3 from 32 bytes to 4 KiB; BouncyCastle's stays in the tests as the reference
 * it is checked against. The weights digest ({@link org.meshjava.core.weights.ModelDirectory})
 * hashes its large files with the same code on several threads, and with the Vector API where the
 * JVM was started with it.
 *
 * <p>Static methods are thread-safe; a {@link Hasher} is not.
 */
public final class Blake3 {
  /** The default output length in bytes. */
  public static final int OUT_LEN = Blake3Compression.OUT_LEN;

  private Blake3() {}

  /** Returns the 32-byte BLAKE3 hash of the concatenation of {@code parts}. */
  public static byte[] hash(byte[]... parts) {
    long total = 0;
    for (byte[] p : parts) {
      total += p.length;
    }
    if (total <= Blake3Compression.CHUNK_LEN) {
      int[] work = new int[WORK_WORDS];
      System.arraycopy(IV, 0, work, 0, 8);
      return oneChunk(work, 0, parts, (int) total);
    }
    Hasher h = newHasher();
    for (byte[] p : parts) {
      h.update(p);
    }
    return h.finish();
  }

  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  /** The IV's words, copied into a one-chunk hash's working words. */
  private static final int[] IV = Blake3Compression.iv();

  /** A one-chunk hash's working words: the chaining value (words 0-15 once compressed), a block. */
  private static final int WORK_WORDS = 2 * Blake3Compression.BLOCK_WORDS;

  /** Where a block's words lie in the working words. */
  private static final int BLOCK_AT = Blake3Compression.BLOCK_WORDS;

  /**
   * Hash of input that fits in one chunk (content ids, envelopes, the reference engine's rounds, an
   * output commitment's opening): the chunk is the root, so each block is compressed straight from
   * the bytes and the last one with the root flag. The general path buffers through a streaming
   * hasher and costs about 800 bytes of garbage per hash; this one allocates its working words
   * (chaining value and block in one array: the compression reads both before it writes its output
   * over the chaining value) and, for several parts, one joined copy. A short last block is read
   * word by word where it lies, not through a zero-padded copy.
   *
   * @param work {@value #WORK_WORDS} words, the mode's key words (the IV for a plain hash, the key
   *     for a keyed one) in the first 8; overwritten
   * @param mode the mode's flag, set on every block ({@code 0} for a plain hash)
   */
  private static byte[] oneChunk(int[] work, int mode, byte[][] parts, int total) {
    int blocks =
        Math.max(1, (total + Blake3Compression.BLOCK_LEN - 1) / Blake3Compression.BLOCK_LEN);
    // One part (an envelope, a request's encoding) is read where it lies, not copied whole into a
    // padded array first; several are joined into one, padded to whole blocks.
    byte[] bytes = parts.length == 1 ? parts[0] : joined(parts, blocks);
    for (int b = 0; b < blocks; b++) {
      int from = b * Blake3Compression.BLOCK_LEN;
      readBlock(bytes, from, Math.min(Blake3Compression.BLOCK_LEN, bytes.length - from), work);
      boolean last = b == blocks - 1;
      int flags =
          mode
              | (b == 0 ? Blake3Compression.CHUNK_START : 0)
              | (last ? Blake3Compression.CHUNK_END | Blake3Compression.ROOT : 0);
      int len = last ? total - b * Blake3Compression.BLOCK_LEN : Blake3Compression.BLOCK_LEN;
      Blake3Compression.compress(work, 0, work, BLOCK_AT, 0, len, flags, work, 0);
    }
    return digestOf(work);
  }

  /**
   * Reads the {@code n} bytes at {@code from} (at most a block) as little-endian words into {@code
   * work}'s block, zero-padded to the block's end.
   */
  private static void readBlock(byte[] bytes, int from, int n, int[] work) {
    int whole = n >>> 2;
    for (int w = 0; w < whole; w++) {
      work[BLOCK_AT + w] = (int) LE_INT.get(bytes, from + w * 4);
    }
    if (whole == Blake3Compression.BLOCK_WORDS) {
      return;
    }
    int word = 0;
    for (int i = 0, at = from + whole * 4; i < (n & 3); i++) {
      word |= (bytes[at + i] & 0xff) << (8 * i);
    }
    work[BLOCK_AT + whole] = word;
    for (int w = whole + 1; w < Blake3Compression.BLOCK_WORDS; w++) {
      work[BLOCK_AT + w] = 0;
    }
  }

  /** {@code parts} one after another, zero-padded to {@code blocks} whole blocks. */
  private static byte[] joined(byte[][] parts, int blocks) {
    byte[] bytes = new byte[blocks * Blake3Compression.BLOCK_LEN];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, bytes, at, p.length);
      at += p.length;
    }
    return bytes;
  }

  /** The 32 bytes of a chaining value's first 8 words, little-endian: the default-length hash. */
  private static byte[] digestOf(int[] words) {
    byte[] result = new byte[OUT_LEN];
    for (int w = 0; w < 8; w++) {
      LE_INT.set(result, w * 4, words[w]);
    }
    return result;
  }

  /**
   * Returns BLAKE3 applied {@code times} times to a 32-byte {@code digest}: {@code hash(hash(…
   * hash(digest)))}, the same bytes as calling {@link #hash} in a loop. A 32-byte input is one
   * block that is its own root, so each round is one compression whose output words are the next
   * round's input words: nothing is converted to bytes or allocated between rounds. The reference
   * engine's simulated work is such a chain, 16 rounds a token by default.
   *
   * @param digest exactly 32 bytes; not modified
   * @param times zero or more; zero returns a copy of {@code digest}
   * @throws IllegalArgumentException if {@code digest} is not 32 bytes or {@code times} is negative
   */
  public static byte[] rehash(byte[] digest, int times) {
    if (digest.length != OUT_LEN) {
      throw new IllegalArgumentException(
          "rehash takes " + OUT_LEN + " bytes, got " + digest.length);
    }
    if (times < 0) {
      throw new IllegalArgumentException("times is at least 0, got " + times);
    }
    int[] iv = Blake3Compression.iv();
    int[] block = new int[Blake3Compression.BLOCK_WORDS]; // words 8..15 stay zero: 32 bytes of 64
    int[] out = new int[Blake3Compression.BLOCK_WORDS];
    for (int w = 0; w < 8; w++) {
      block[w] = (int) LE_INT.get(digest, w * 4);
    }
    int flags =
        Blake3Compression.CHUNK_START | Blake3Compression.CHUNK_END | Blake3Compression.ROOT;
    for (int r = 0; r < times; r++) {
      Blake3Compression.compress(iv, 0, block, 0, 0, OUT_LEN, flags, out, 0);
      System.arraycopy(out, 0, block, 0, 8);
    }
    return digestOf(block);
  }

  /** Returns a streaming hasher in plain hash mode. */
  public static Hasher newHasher() {
    return new Hasher(Blake3Large.plain(ScalarChunkKernel.INSTANCE));
  }

  /**
   * Returns a streaming hasher in keyed mode.
   *
   * @param key exactly 32 bytes
   * @throws IllegalArgumentException if the key is not 32 bytes
   */
  public static Hasher newKeyedHasher(byte[] key) {
    return new Hasher(Blake3Large.keyed(key, ScalarChunkKernel.INSTANCE));
  }

  /**
   * Returns a streaming hasher in key-derivation mode under the context string (BLAKE3's {@code
   * derive_key}).
   */
  public static Hasher newDeriveKeyHasher(String context) {
    return new Hasher(Blake3Large.deriveKey(context, ScalarChunkKernel.INSTANCE));
  }

  /** Returns {@code derive_key(context, material)}, 32 bytes. */
  public static byte[] deriveKey(String context, byte[] material) {
    return newDeriveKeyHasher(context).update(material).finish();
  }

  /**
   * Returns the keyed hash of {@code message} under a 32-byte {@code key}, 32 bytes.
   *
   * @throws IllegalArgumentException if the key is not 32 bytes
   */
  public static byte[] keyedHash(byte[] key, byte[] message) {
    if (key.length == OUT_LEN && message.length <= Blake3Compression.CHUNK_LEN) {
      // One chunk (a serve's opening keys 32 bytes): no streaming hasher and its buffers.
      int[] work = new int[WORK_WORDS];
      for (int w = 0; w < 8; w++) {
        work[w] = (int) LE_INT.get(key, w * 4);
      }
      return oneChunk(work, Blake3Compression.KEYED_HASH, new byte[][] {message}, message.length);
    }
    return newKeyedHasher(key).update(message).finish();
  }

  /**
   * An incremental BLAKE3 computation. Not thread-safe; use once: after {@code finish}, neither
   * {@code update} nor a second {@code finish} gives a meaningful result.
   */
  public static final class Hasher {
    private final Blake3Large.Hasher hasher;

    private Hasher(Blake3Large.Hasher hasher) {
      this.hasher = hasher;
    }

    /** Absorbs {@code bytes}. */
    public Hasher update(byte[] bytes) {
      hasher.update(bytes);
      return this;
    }

    /** Absorbs {@code len} bytes of {@code bytes} from {@code off}. */
    public Hasher update(byte[] bytes, int off, int len) {
      hasher.update(bytes, off, len);
      return this;
    }

    /**
     * Absorbs the rest of {@code in}, streaming, without holding it in memory. The stream is read
     * to its end and left open.
     *
     * @throws IOException if reading fails; the hasher must not be used after that
     */
    public Hasher update(InputStream in) throws IOException {
      byte[] buf = new byte[1 << 16];
      int n;
      while ((n = in.read(buf)) > 0) {
        hasher.update(buf, 0, n);
      }
      return this;
    }

    /** Returns the 32-byte output. */
    public byte[] finish() {
      return hasher.finish();
    }

    /**
     * Returns {@code length} bytes of extended output; its first 32 bytes are {@link #finish()}'s.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public byte[] finish(int length) {
      return hasher.finish(length);
    }
  }
}
