package org.meshjava.core.crypto;

import static jdk.incubator.vector.VectorOperators.ROR;
import static jdk.incubator.vector.VectorOperators.XOR;
import static org.meshjava.core.crypto.Blake3Compression.BLOCK_LEN;
import static org.meshjava.core.crypto.Blake3Compression.BLOCK_WORDS;
import static org.meshjava.core.crypto.Blake3Compression.CHUNK_END;
import static org.meshjava.core.crypto.Blake3Compression.CHUNK_START;
import static org.meshjava.core.crypto.Blake3Compression.CHUNK_WORDS;
import static org.meshjava.core.crypto.Blake3Compression.IV0;
import static org.meshjava.core.crypto.Blake3Compression.IV1;
import static org.meshjava.core.crypto.Blake3Compression.IV2;
import static org.meshjava.core.crypto.Blake3Compression.IV3;
import static org.meshjava.core.crypto.Blake3Compression.PARENT;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The {@link ChunkKernel} on the incubating Vector API: one lane per chunk (or parent), so a
 * 512-bit vector compresses 16 chunks' blocks in one pass. This is BLAKE3's own "many chunks at
 * once" layout: word {@code w} of block {@code b} of every chunk in the group is gathered into one
 * vector, and the round function runs unchanged on vectors instead of ints.
 *
 * <p>Loaded by name from {@link ChunkKernel#fastest()} only when the module is present; a group
 * smaller than the vector falls back to {@link ScalarChunkKernel}.
 */
final class VectorChunkKernel implements ChunkKernel {
  private static final VectorSpecies<Integer> SPECIES = IntVector.SPECIES_PREFERRED;
  private static final int LANES = SPECIES.length();
  private static final int BLOCKS_PER_CHUNK = CHUNK_WORDS / BLOCK_WORDS;

  /**
   * The instance, or null when the CPU's preferred vector holds fewer than 4 ints. Declared after
   * the constants its constructor reads.
   */
  static final VectorChunkKernel INSTANCE = LANES >= 4 ? new VectorChunkKernel() : null;

  /** Gather offsets: lane i reads chunk i of the group (or parent i). */
  private final int[] chunkStride = new int[LANES];

  private final int[] parentStride = new int[LANES];
  private final int[] cvStride = new int[LANES];

  private VectorChunkKernel() {
    for (int i = 0; i < LANES; i++) {
      chunkStride[i] = i * CHUNK_WORDS;
      parentStride[i] = i * BLOCK_WORDS;
      cvStride[i] = i * 8;
    }
  }

  @Override
  public void chunks(
      int[] words,
      int wordOff,
      int count,
      long counter,
      int[] key,
      int flags,
      int[] out,
      int outOff) {
    int whole = count - count % LANES;
    int[] lo = new int[LANES];
    int[] hi = new int[LANES];
    for (int g = 0; g < whole; g += LANES) {
      for (int i = 0; i < LANES; i++) {
        long c = counter + g + i;
        lo[i] = (int) c;
        hi[i] = (int) (c >>> 32);
      }
      IntVector counterLo = IntVector.fromArray(SPECIES, lo, 0);
      IntVector counterHi = IntVector.fromArray(SPECIES, hi, 0);
      IntVector h0 = IntVector.broadcast(SPECIES, key[0]);
      IntVector h1 = IntVector.broadcast(SPECIES, key[1]);
      IntVector h2 = IntVector.broadcast(SPECIES, key[2]);
      IntVector h3 = IntVector.broadcast(SPECIES, key[3]);
      IntVector h4 = IntVector.broadcast(SPECIES, key[4]);
      IntVector h5 = IntVector.broadcast(SPECIES, key[5]);
      IntVector h6 = IntVector.broadcast(SPECIES, key[6]);
      IntVector h7 = IntVector.broadcast(SPECIES, key[7]);
      int groupOff = wordOff + g * CHUNK_WORDS;
      for (int b = 0; b < BLOCKS_PER_CHUNK; b++) {
        int blockOff = groupOff + b * BLOCK_WORDS;
        int blockFlags =
            flags | (b == 0 ? CHUNK_START : 0) | (b == BLOCKS_PER_CHUNK - 1 ? CHUNK_END : 0);
        IntVector m0 = IntVector.fromArray(SPECIES, words, blockOff, chunkStride, 0);
        IntVector m1 = IntVector.fromArray(SPECIES, words, blockOff + 1, chunkStride, 0);
        IntVector m2 = IntVector.fromArray(SPECIES, words, blockOff + 2, chunkStride, 0);
        IntVector m3 = IntVector.fromArray(SPECIES, words, blockOff + 3, chunkStride, 0);
        IntVector m4 = IntVector.fromArray(SPECIES, words, blockOff + 4, chunkStride, 0);
        IntVector m5 = IntVector.fromArray(SPECIES, words, blockOff + 5, chunkStride, 0);
        IntVector m6 = IntVector.fromArray(SPECIES, words, blockOff + 6, chunkStride, 0);
        IntVector m7 = IntVector.fromArray(SPECIES, words, blockOff + 7, chunkStride, 0);
        IntVector m8 = IntVector.fromArray(SPECIES, words, blockOff + 8, chunkStride, 0);
        IntVector m9 = IntVector.fromArray(SPECIES, words, blockOff + 9, chunkStride, 0);
        IntVector m10 = IntVector.fromArray(SPECIES, words, blockOff + 10, chunkStride, 0);
        IntVector m11 = IntVector.fromArray(SPECIES, words, blockOff + 11, chunkStride, 0);
        IntVector m12 = IntVector.fromArray(SPECIES, words, blockOff + 12, chunkStride, 0);
        IntVector m13 = IntVector.fromArray(SPECIES, words, blockOff + 13, chunkStride, 0);
        IntVector m14 = IntVector.fromArray(SPECIES, words, blockOff + 14, chunkStride, 0);
        IntVector m15 = IntVector.fromArray(SPECIES, words, blockOff + 15, chunkStride, 0);
        IntVector v0 = h0;
        IntVector v1 = h1;
        IntVector v2 = h2;
        IntVector v3 = h3;
        IntVector v4 = h4;
        IntVector v5 = h5;
        IntVector v6 = h6;
        IntVector v7 = h7;
        IntVector v8 = IntVector.broadcast(SPECIES, IV0);
        IntVector v9 = IntVector.broadcast(SPECIES, IV1);
        IntVector v10 = IntVector.broadcast(SPECIES, IV2);
        IntVector v11 = IntVector.broadcast(SPECIES, IV3);
        IntVector v12 = counterLo;
        IntVector v13 = counterHi;
        IntVector v14 = IntVector.broadcast(SPECIES, BLOCK_LEN);
        IntVector v15 = IntVector.broadcast(SPECIES, blockFlags);
        for (int round = 0; round < 7; round++) {
          v0 = v0.add(v4).add(m0);
          v12 = v12.lanewise(XOR, v0).lanewise(ROR, 16);
          v8 = v8.add(v12);
          v4 = v4.lanewise(XOR, v8).lanewise(ROR, 12);
          v0 = v0.add(v4).add(m1);
          v12 = v12.lanewise(XOR, v0).lanewise(ROR, 8);
          v8 = v8.add(v12);
          v4 = v4.lanewise(XOR, v8).lanewise(ROR, 7);
          v1 = v1.add(v5).add(m2);
          v13 = v13.lanewise(XOR, v1).lanewise(ROR, 16);
          v9 = v9.add(v13);
          v5 = v5.lanewise(XOR, v9).lanewise(ROR, 12);
          v1 = v1.add(v5).add(m3);
          v13 = v13.lanewise(XOR, v1).lanewise(ROR, 8);
          v9 = v9.add(v13);
          v5 = v5.lanewise(XOR, v9).lanewise(ROR, 7);
          v2 = v2.add(v6).add(m4);
          v14 = v14.lanewise(XOR, v2).lanewise(ROR, 16);
          v10 = v10.add(v14);
          v6 = v6.lanewise(XOR, v10).lanewise(ROR, 12);
          v2 = v2.add(v6).add(m5);
          v14 = v14.lanewise(XOR, v2).lanewise(ROR, 8);
          v10 = v10.add(v14);
          v6 = v6.lanewise(XOR, v10).lanewise(ROR, 7);
          v3 = v3.add(v7).add(m6);
          v15 = v15.lanewise(XOR, v3).lanewise(ROR, 16);
          v11 = v11.add(v15);
          v7 = v7.lanewise(XOR, v11).lanewise(ROR, 12);
          v3 = v3.add(v7).add(m7);
          v15 = v15.lanewise(XOR, v3).lanewise(ROR, 8);
          v11 = v11.add(v15);
          v7 = v7.lanewise(XOR, v11).lanewise(ROR, 7);
          v0 = v0.add(v5).add(m8);
          v15 = v15.lanewise(XOR, v0).lanewise(ROR, 16);
          v10 = v10.add(v15);
          v5 = v5.lanewise(XOR, v10).lanewise(ROR, 12);
          v0 = v0.add(v5).add(m9);
          v15 = v15.lanewise(XOR, v0).lanewise(ROR, 8);
          v10 = v10.add(v15);
          v5 = v5.lanewise(XOR, v10).lanewise(ROR, 7);
          v1 = v1.add(v6).add(m10);
          v12 = v12.lanewise(XOR, v1).lanewise(ROR, 16);
          v11 = v11.add(v12);
          v6 = v6.lanewise(XOR, v11).lanewise(ROR, 12);
          v1 = v1.add(v6).add(m11);
          v12 = v12.lanewise(XOR, v1).lanewise(ROR, 8);
          v11 = v11.add(v12);
          v6 = v6.lanewise(XOR, v11).lanewise(ROR, 7);
          v2 = v2.add(v7).add(m12);
          v13 = v13.lanewise(XOR, v2).lanewise(ROR, 16);
          v8 = v8.add(v13);
          v7 = v7.lanewise(XOR, v8).lanewise(ROR, 12);
          v2 = v2.add(v7).add(m13);
          v13 = v13.lanewise(XOR, v2).lanewise(ROR, 8);
          v8 = v8.add(v13);
          v7 = v7.lanewise(XOR, v8).lanewise(ROR, 7);
          v3 = v3.add(v4).add(m14);
          v14 = v14.lanewise(XOR, v3).lanewise(ROR, 16);
          v9 = v9.add(v14);
          v4 = v4.lanewise(XOR, v9).lanewise(ROR, 12);
          v3 = v3.add(v4).add(m15);
          v14 = v14.lanewise(XOR, v3).lanewise(ROR, 8);
          v9 = v9.add(v14);
          v4 = v4.lanewise(XOR, v9).lanewise(ROR, 7);
          // The message permutation, as its two 8-cycles: m[i] takes the old m[PERMUTATION[i]].
          IntVector t = m0;
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
        h0 = v0.lanewise(XOR, v8);
        h1 = v1.lanewise(XOR, v9);
        h2 = v2.lanewise(XOR, v10);
        h3 = v3.lanewise(XOR, v11);
        h4 = v4.lanewise(XOR, v12);
        h5 = v5.lanewise(XOR, v13);
        h6 = v6.lanewise(XOR, v14);
        h7 = v7.lanewise(XOR, v15);
      }
      store(h0, h1, h2, h3, h4, h5, h6, h7, out, outOff + g * 8);
    }
    ScalarChunkKernel.INSTANCE.chunks(
        words,
        wordOff + whole * CHUNK_WORDS,
        count - whole,
        counter + whole,
        key,
        flags,
        out,
        outOff + whole * 8);
  }

  @Override
  public void parents(int[] cvs, int off, int count, int[] key, int flags, int[] out, int outOff) {
    int whole = count - count % LANES;
    IntVector v14Init = IntVector.broadcast(SPECIES, BLOCK_LEN);
    IntVector v15Init = IntVector.broadcast(SPECIES, flags | PARENT);
    IntVector zero = IntVector.zero(SPECIES);
    for (int g = 0; g < whole; g += LANES) {
      int blockOff = off + g * BLOCK_WORDS;
      IntVector m0 = IntVector.fromArray(SPECIES, cvs, blockOff, parentStride, 0);
      IntVector m1 = IntVector.fromArray(SPECIES, cvs, blockOff + 1, parentStride, 0);
      IntVector m2 = IntVector.fromArray(SPECIES, cvs, blockOff + 2, parentStride, 0);
      IntVector m3 = IntVector.fromArray(SPECIES, cvs, blockOff + 3, parentStride, 0);
      IntVector m4 = IntVector.fromArray(SPECIES, cvs, blockOff + 4, parentStride, 0);
      IntVector m5 = IntVector.fromArray(SPECIES, cvs, blockOff + 5, parentStride, 0);
      IntVector m6 = IntVector.fromArray(SPECIES, cvs, blockOff + 6, parentStride, 0);
      IntVector m7 = IntVector.fromArray(SPECIES, cvs, blockOff + 7, parentStride, 0);
      IntVector m8 = IntVector.fromArray(SPECIES, cvs, blockOff + 8, parentStride, 0);
      IntVector m9 = IntVector.fromArray(SPECIES, cvs, blockOff + 9, parentStride, 0);
      IntVector m10 = IntVector.fromArray(SPECIES, cvs, blockOff + 10, parentStride, 0);
      IntVector m11 = IntVector.fromArray(SPECIES, cvs, blockOff + 11, parentStride, 0);
      IntVector m12 = IntVector.fromArray(SPECIES, cvs, blockOff + 12, parentStride, 0);
      IntVector m13 = IntVector.fromArray(SPECIES, cvs, blockOff + 13, parentStride, 0);
      IntVector m14 = IntVector.fromArray(SPECIES, cvs, blockOff + 14, parentStride, 0);
      IntVector m15 = IntVector.fromArray(SPECIES, cvs, blockOff + 15, parentStride, 0);
      IntVector h0 = IntVector.broadcast(SPECIES, key[0]);
      IntVector h1 = IntVector.broadcast(SPECIES, key[1]);
      IntVector h2 = IntVector.broadcast(SPECIES, key[2]);
      IntVector h3 = IntVector.broadcast(SPECIES, key[3]);
      IntVector h4 = IntVector.broadcast(SPECIES, key[4]);
      IntVector h5 = IntVector.broadcast(SPECIES, key[5]);
      IntVector h6 = IntVector.broadcast(SPECIES, key[6]);
      IntVector h7 = IntVector.broadcast(SPECIES, key[7]);
      IntVector v0 = h0;
      IntVector v1 = h1;
      IntVector v2 = h2;
      IntVector v3 = h3;
      IntVector v4 = h4;
      IntVector v5 = h5;
      IntVector v6 = h6;
      IntVector v7 = h7;
      IntVector v8 = IntVector.broadcast(SPECIES, IV0);
      IntVector v9 = IntVector.broadcast(SPECIES, IV1);
      IntVector v10 = IntVector.broadcast(SPECIES, IV2);
      IntVector v11 = IntVector.broadcast(SPECIES, IV3);
      IntVector v12 = zero;
      IntVector v13 = zero;
      IntVector v14 = v14Init;
      IntVector v15 = v15Init;
      for (int round = 0; round < 7; round++) {
        v0 = v0.add(v4).add(m0);
        v12 = v12.lanewise(XOR, v0).lanewise(ROR, 16);
        v8 = v8.add(v12);
        v4 = v4.lanewise(XOR, v8).lanewise(ROR, 12);
        v0 = v0.add(v4).add(m1);
        v12 = v12.lanewise(XOR, v0).lanewise(ROR, 8);
        v8 = v8.add(v12);
        v4 = v4.lanewise(XOR, v8).lanewise(ROR, 7);
        v1 = v1.add(v5).add(m2);
        v13 = v13.lanewise(XOR, v1).lanewise(ROR, 16);
        v9 = v9.add(v13);
        v5 = v5.lanewise(XOR, v9).lanewise(ROR, 12);
        v1 = v1.add(v5).add(m3);
        v13 = v13.lanewise(XOR, v1).lanewise(ROR, 8);
        v9 = v9.add(v13);
        v5 = v5.lanewise(XOR, v9).lanewise(ROR, 7);
        v2 = v2.add(v6).add(m4);
        v14 = v14.lanewise(XOR, v2).lanewise(ROR, 16);
        v10 = v10.add(v14);
        v6 = v6.lanewise(XOR, v10).lanewise(ROR, 12);
        v2 = v2.add(v6).add(m5);
        v14 = v14.lanewise(XOR, v2).lanewise(ROR, 8);
        v10 = v10.add(v14);
        v6 = v6.lanewise(XOR, v10).lanewise(ROR, 7);
        v3 = v3.add(v7).add(m6);
        v15 = v15.lanewise(XOR, v3).lanewise(ROR, 16);
        v11 = v11.add(v15);
        v7 = v7.lanewise(XOR, v11).lanewise(ROR, 12);
        v3 = v3.add(v7).add(m7);
        v15 = v15.lanewise(XOR, v3).lanewise(ROR, 8);
        v11 = v11.add(v15);
        v7 = v7.lanewise(XOR, v11).lanewise(ROR, 7);
        v0 = v0.add(v5).add(m8);
        v15 = v15.lanewise(XOR, v0).lanewise(ROR, 16);
        v10 = v10.add(v15);
        v5 = v5.lanewise(XOR, v10).lanewise(ROR, 12);
        v0 = v0.add(v5).add(m9);
        v15 = v15.lanewise(XOR, v0).lanewise(ROR, 8);
        v10 = v10.add(v15);
        v5 = v5.lanewise(XOR, v10).lanewise(ROR, 7);
        v1 = v1.add(v6).add(m10);
        v12 = v12.lanewise(XOR, v1).lanewise(ROR, 16);
        v11 = v11.add(v12);
        v6 = v6.lanewise(XOR, v11).lanewise(ROR, 12);
        v1 = v1.add(v6).add(m11);
        v12 = v12.lanewise(XOR, v1).lanewise(ROR, 8);
        v11 = v11.add(v12);
        v6 = v6.lanewise(XOR, v11).lanewise(ROR, 7);
        v2 = v2.add(v7).add(m12);
        v13 = v13.lanewise(XOR, v2).lanewise(ROR, 16);
        v8 = v8.add(v13);
        v7 = v7.lanewise(XOR, v8).lanewise(ROR, 12);
        v2 = v2.add(v7).add(m13);
        v13 = v13.lanewise(XOR, v2).lanewise(ROR, 8);
        v8 = v8.add(v13);
        v7 = v7.lanewise(XOR, v8).lanewise(ROR, 7);
        v3 = v3.add(v4).add(m14);
        v14 = v14.lanewise(XOR, v3).lanewise(ROR, 16);
        v9 = v9.add(v14);
        v4 = v4.lanewise(XOR, v9).lanewise(ROR, 12);
        v3 = v3.add(v4).add(m15);
        v14 = v14.lanewise(XOR, v3).lanewise(ROR, 8);
        v9 = v9.add(v14);
        v4 = v4.lanewise(XOR, v9).lanewise(ROR, 7);
        // The message permutation, as its two 8-cycles: m[i] takes the old m[PERMUTATION[i]].
        IntVector t = m0;
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
      store(
          v0.lanewise(XOR, v8),
          v1.lanewise(XOR, v9),
          v2.lanewise(XOR, v10),
          v3.lanewise(XOR, v11),
          v4.lanewise(XOR, v12),
          v5.lanewise(XOR, v13),
          v6.lanewise(XOR, v14),
          v7.lanewise(XOR, v15),
          out,
          outOff + g * 8);
    }
    ScalarChunkKernel.INSTANCE.parents(
        cvs, off + whole * BLOCK_WORDS, count - whole, key, flags, out, outOff + whole * 8);
  }

  /** Scatters lane i's 8-word chaining value to {@code out[outOff + 8 * i ...]}. */
  private void store(
      IntVector h0,
      IntVector h1,
      IntVector h2,
      IntVector h3,
      IntVector h4,
      IntVector h5,
      IntVector h6,
      IntVector h7,
      int[] out,
      int outOff) {
    h0.intoArray(out, outOff, cvStride, 0);
    h1.intoArray(out, outOff + 1, cvStride, 0);
    h2.intoArray(out, outOff + 2, cvStride, 0);
    h3.intoArray(out, outOff + 3, cvStride, 0);
    h4.intoArray(out, outOff + 4, cvStride, 0);
    h5.intoArray(out, outOff + 5, cvStride, 0);
    h6.intoArray(out, outOff + 6, cvStride, 0);
    h7.intoArray(out, outOff + 7, cvStride, 0);
  }

  @Override
  public String describe() {
    return "vector, " + LANES + " lanes";
  }
}
