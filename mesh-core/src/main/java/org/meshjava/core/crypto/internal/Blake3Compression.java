package org.meshjava.core.crypto.internal;

/**
 * BLAKE3's compression function and constants, scalar, for the large-input implementation ({@link
 * Blake3Large}). Words are 32-bit little-endian; a block is 16 words, a chaining value 8.
 *
 * <p>Stateless; all methods are thread-safe.
 */
public final class Blake3Compression {
  /** Bytes in a chunk, the leaf of BLAKE3's tree. */
  public static final int CHUNK_LEN = 1024;

  /** Bytes of a default-length hash: a chaining value's 8 words. */
  public static final int OUT_LEN = 32;

  /** Bytes in a block, the unit the compression function takes. */
  public static final int BLOCK_LEN = 64;

  /** Words (ints) in a chunk. */
  static final int CHUNK_WORDS = CHUNK_LEN / 4;

  /** Words in a block. */
  public static final int BLOCK_WORDS = BLOCK_LEN / 4;

  public static final int CHUNK_START = 1;
  public static final int CHUNK_END = 1 << 1;
  static final int PARENT = 1 << 2;
  public static final int ROOT = 1 << 3;
  public static final int KEYED_HASH = 1 << 4;
  static final int DERIVE_KEY_CONTEXT = 1 << 5;
  static final int DERIVE_KEY_MATERIAL = 1 << 6;

  static final int IV0 = 0x6A09E667;
  static final int IV1 = 0xBB67AE85;
  static final int IV2 = 0x3C6EF372;
  static final int IV3 = 0xA54FF53A;
  static final int IV4 = 0x510E527F;
  static final int IV5 = 0x9B05688C;
  static final int IV6 = 0x1F83D9AB;
  static final int IV7 = 0x5BE0CD19;

  private Blake3Compression() {}

  /** The IV as a key: what plain hash mode uses where keyed mode uses the key. */
  public static int[] iv() {
    return new int[] {IV0, IV1, IV2, IV3, IV4, IV5, IV6, IV7};
  }

  /**
   * Compresses one block and writes the 16 output words to {@code out} from {@code outOff}: the
   * first 8 are the new chaining value, all 16 the extended output of a root node.
   *
   * @param cv the input chaining value, 8 words from {@code cvOff}
   * @param block the block, 16 words from {@code blockOff} (bytes past {@code blockLen} zero)
   */
  public static void compress(
      int[] cv,
      int cvOff,
      int[] block,
      int blockOff,
      long counter,
      int blockLen,
      int flags,
      int[] out,
      int outOff) {
    int h0 = cv[cvOff];
    int h1 = cv[cvOff + 1];
    int h2 = cv[cvOff + 2];
    int h3 = cv[cvOff + 3];
    int h4 = cv[cvOff + 4];
    int h5 = cv[cvOff + 5];
    int h6 = cv[cvOff + 6];
    int h7 = cv[cvOff + 7];
    int m0 = block[blockOff];
    int m1 = block[blockOff + 1];
    int m2 = block[blockOff + 2];
    int m3 = block[blockOff + 3];
    int m4 = block[blockOff + 4];
    int m5 = block[blockOff + 5];
    int m6 = block[blockOff + 6];
    int m7 = block[blockOff + 7];
    int m8 = block[blockOff + 8];
    int m9 = block[blockOff + 9];
    int m10 = block[blockOff + 10];
    int m11 = block[blockOff + 11];
    int m12 = block[blockOff + 12];
    int m13 = block[blockOff + 13];
    int m14 = block[blockOff + 14];
    int m15 = block[blockOff + 15];
    int v0 = h0;
    int v1 = h1;
    int v2 = h2;
    int v3 = h3;
    int v4 = h4;
    int v5 = h5;
    int v6 = h6;
    int v7 = h7;
    int v8 = IV0;
    int v9 = IV1;
    int v10 = IV2;
    int v11 = IV3;
    int v12 = (int) counter;
    int v13 = (int) (counter >>> 32);
    int v14 = blockLen;
    int v15 = flags;
    for (int round = 0; round < 7; round++) {
      v0 += v4 + m0;
      v12 = Integer.rotateRight(v12 ^ v0, 16);
      v8 += v12;
      v4 = Integer.rotateRight(v4 ^ v8, 12);
      v0 += v4 + m1;
      v12 = Integer.rotateRight(v12 ^ v0, 8);
      v8 += v12;
      v4 = Integer.rotateRight(v4 ^ v8, 7);
      v1 += v5 + m2;
      v13 = Integer.rotateRight(v13 ^ v1, 16);
      v9 += v13;
      v5 = Integer.rotateRight(v5 ^ v9, 12);
      v1 += v5 + m3;
      v13 = Integer.rotateRight(v13 ^ v1, 8);
      v9 += v13;
      v5 = Integer.rotateRight(v5 ^ v9, 7);
      v2 += v6 + m4;
      v14 = Integer.rotateRight(v14 ^ v2, 16);
      v10 += v14;
      v6 = Integer.rotateRight(v6 ^ v10, 12);
      v2 += v6 + m5;
      v14 = Integer.rotateRight(v14 ^ v2, 8);
      v10 += v14;
      v6 = Integer.rotateRight(v6 ^ v10, 7);
      v3 += v7 + m6;
      v15 = Integer.rotateRight(v15 ^ v3, 16);
      v11 += v15;
      v7 = Integer.rotateRight(v7 ^ v11, 12);
      v3 += v7 + m7;
      v15 = Integer.rotateRight(v15 ^ v3, 8);
      v11 += v15;
      v7 = Integer.rotateRight(v7 ^ v11, 7);
      v0 += v5 + m8;
      v15 = Integer.rotateRight(v15 ^ v0, 16);
      v10 += v15;
      v5 = Integer.rotateRight(v5 ^ v10, 12);
      v0 += v5 + m9;
      v15 = Integer.rotateRight(v15 ^ v0, 8);
      v10 += v15;
      v5 = Integer.rotateRight(v5 ^ v10, 7);
      v1 += v6 + m10;
      v12 = Integer.rotateRight(v12 ^ v1, 16);
      v11 += v12;
      v6 = Integer.rotateRight(v6 ^ v11, 12);
      v1 += v6 + m11;
      v12 = Integer.rotateRight(v12 ^ v1, 8);
      v11 += v12;
      v6 = Integer.rotateRight(v6 ^ v11, 7);
      v2 += v7 + m12;
      v13 = Integer.rotateRight(v13 ^ v2, 16);
      v8 += v13;
      v7 = Integer.rotateRight(v7 ^ v8, 12);
      v2 += v7 + m13;
      v13 = Integer.rotateRight(v13 ^ v2, 8);
      v8 += v13;
      v7 = Integer.rotateRight(v7 ^ v8, 7);
      v3 += v4 + m14;
      v14 = Integer.rotateRight(v14 ^ v3, 16);
      v9 += v14;
      v4 = Integer.rotateRight(v4 ^ v9, 12);
      v3 += v4 + m15;
      v14 = Integer.rotateRight(v14 ^ v3, 8);
      v9 += v14;
      v4 = Integer.rotateRight(v4 ^ v9, 7);
      // The message permutation, as its two 8-cycles: m[i] takes the old m[PERMUTATION[i]].
      int t = m0;
      m0 = m2;
      m2 = m3;
      m3 = m10;
      m10 = m12;
      m12 = m9;
      m9 = m11;
      m11 = m5;
      m5 = t;
      t = m1;
      m1 = m6;
      m6 = m4;
      m4 = m7;
      m7 = m13;
      m13 = m14;
      m14 = m15;
      m15 = m8;
      m8 = t;
    }
    out[outOff] = v0 ^ v8;
    out[outOff + 1] = v1 ^ v9;
    out[outOff + 2] = v2 ^ v10;
    out[outOff + 3] = v3 ^ v11;
    out[outOff + 4] = v4 ^ v12;
    out[outOff + 5] = v5 ^ v13;
    out[outOff + 6] = v6 ^ v14;
    out[outOff + 7] = v7 ^ v15;
    out[outOff + 8] = v8 ^ h0;
    out[outOff + 9] = v9 ^ h1;
    out[outOff + 10] = v10 ^ h2;
    out[outOff + 11] = v11 ^ h3;
    out[outOff + 12] = v12 ^ h4;
    out[outOff + 13] = v13 ^ h5;
    out[outOff + 14] = v14 ^ h6;
    out[outOff + 15] = v15 ^ h7;
  }
}
