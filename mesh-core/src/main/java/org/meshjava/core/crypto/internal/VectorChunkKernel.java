package org.meshjava.core.crypto.internal;

import static jdk.incubator.vector.VectorOperators.ROR;
import static jdk.incubator.vector.VectorOperators.XOR;
import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_LEN;
import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_END;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_START;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.IV0;
import static org.meshjava.core.crypto.internal.Blake3Compression.IV1;
import static org.meshjava.core.crypto.internal.Blake3Compression.IV2;
import static org.meshjava.core.crypto.internal.Blake3Compression.IV3;
import static org.meshjava.core.crypto.internal.Blake3Compression.PARENT;

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
   * For each of the 7 rounds, where each of its 16 message words lies in a transposed block: the
   * round's word k is the original word {@code Blake3Compression} permutes into place k, times
   * {@link #LANES}.
   */
  private static final int[] SCHEDULE = schedule();

  /** Butterfly stages of a LANES x LANES transpose. */
  private static final int STAGES = Integer.numberOfTrailingZeros(LANES);

  /**
   * The permutation indexes of each stage: at stage k rows r and r + 2^k (r's bit k clear) trade
   * the elements whose column and row differ in bit k. Row r's new vector is at {@code 2k * LANES},
   * row r + 2^k's at {@code (2k + 1) * LANES}; an index of LANES or more picks from the second row.
   */
  private static final int[] TRANSPOSE = transposeIndexes();

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
      int[] words, int wordOff, int count, long counter, Blake3Mode mode, int[] out, int outOff) {
    int whole = count - count % LANES;
    int[] lo = new int[LANES];
    int[] hi = new int[LANES];
    int[] msg = new int[16 * LANES];
    int[] cv = new int[8 * LANES];
    int[] ta = new int[LANES * LANES];
    int[] tb = new int[LANES * LANES];
    for (int g = 0; g < whole; g += LANES) {
      for (int i = 0; i < LANES; i++) {
        long c = counter + g + i;
        lo[i] = (int) c;
        hi[i] = (int) (c >>> 32);
      }
      broadcast(mode.key(), cv);
      int groupOff = wordOff + g * CHUNK_WORDS;
      for (int b = 0; b < BLOCKS_PER_CHUNK; b++) {
        transpose(words, groupOff + b * BLOCK_WORDS, CHUNK_WORDS, msg, ta, tb);
        int blockFlags =
            mode.flags() | (b == 0 ? CHUNK_START : 0) | (b == BLOCKS_PER_CHUNK - 1 ? CHUNK_END : 0);
        compress(cv, msg, lo, hi, blockFlags);
      }
      scatter(cv, out, outOff + g * 8);
    }
    ScalarChunkKernel.INSTANCE.chunks(
        words,
        wordOff + whole * CHUNK_WORDS,
        count - whole,
        counter + whole,
        mode,
        out,
        outOff + whole * 8);
  }

  @Override
  public void parents(int[] cvs, int off, int count, Blake3Mode mode, int[] out, int outOff) {
    int whole = count - count % LANES;
    int[] zero = new int[LANES];
    int[] msg = new int[16 * LANES];
    int[] cv = new int[8 * LANES];
    int[] ta = new int[LANES * LANES];
    int[] tb = new int[LANES * LANES];
    for (int g = 0; g < whole; g += LANES) {
      // All of a group's parents are read before any output is written: out may be cvs.
      transpose(cvs, off + g * BLOCK_WORDS, BLOCK_WORDS, msg, ta, tb);
      broadcast(mode.key(), cv);
      compress(cv, msg, zero, zero, mode.flags() | PARENT);
      scatter(cv, out, outOff + g * 8);
    }
    ScalarChunkKernel.INSTANCE.parents(
        cvs, off + whole * BLOCK_WORDS, count - whole, mode, out, outOff + whole * 8);
  }

  /** Lays word w of the key into {@code cv[w * LANES ...]}, the same in every lane. */
  private static void broadcast(int[] key, int[] cv) {
    for (int w = 0; w < 8; w++) {
      IntVector.broadcast(SPECIES, key[w]).intoArray(cv, w * LANES);
    }
  }

  /**
   * Transposes one block per lane into {@code msg}: word w of lane i's block, which starts at
   * {@code src[off + i * rowStride]}, goes to {@code msg[w * LANES + i]}. The blocks are read with
   * plain vector loads and transposed in log2(LANES) butterfly stages of two-vector permutations
   * ({@code selectFrom}); 16 gathers instead cost about a third of the kernel's time here.
   */
  private static void transpose(int[] src, int off, int rowStride, int[] msg, int[] a, int[] b) {
    for (int part = 0; part < BLOCK_WORDS; part += LANES) {
      // Square LANES x LANES transposes, one per LANES columns of the block.
      int[] from = null;
      int[] to = a;
      for (int stage = 0; stage < STAGES; stage++) {
        int d = 1 << stage;
        IntVector lo = IntVector.fromArray(SPECIES, TRANSPOSE, 2 * stage * LANES);
        IntVector hi = IntVector.fromArray(SPECIES, TRANSPOSE, (2 * stage + 1) * LANES);
        if (stage == STAGES - 1) {
          to = msg;
        }
        for (int r = 0; r < LANES; r++) {
          if ((r & d) != 0) {
            continue;
          }
          IntVector x;
          IntVector y;
          if (from == null) {
            x = IntVector.fromArray(SPECIES, src, off + r * rowStride + part);
            y = IntVector.fromArray(SPECIES, src, off + (r + d) * rowStride + part);
          } else {
            x = IntVector.fromArray(SPECIES, from, r * LANES);
            y = IntVector.fromArray(SPECIES, from, (r + d) * LANES);
          }
          int base = to == msg ? part * LANES : 0;
          lo.selectFrom(x, y).intoArray(to, base + r * LANES);
          hi.selectFrom(x, y).intoArray(to, base + (r + d) * LANES);
        }
        from = to;
        to = to == a ? b : a;
      }
    }
  }

  /** Scatters lane i's 8-word chaining value from {@code cv} to {@code out[outOff + 8 * i ...]}. */
  private void scatter(int[] cv, int[] out, int outOff) {
    for (int w = 0; w < 8; w++) {
      IntVector.fromArray(SPECIES, cv, w * LANES).intoArray(out, outOff + w, cvStride, 0);
    }
  }

  /**
   * One BLAKE3 compression in every lane: the chaining values in {@code cv} (word w of every lane
   * at {@code w * LANES}) absorb the blocks in {@code msg} (laid out the same way) and are replaced
   * by the new chaining values. The message stays in memory and each round loads its words in that
   * round's order: 16 state vectors and a few temporaries fit in the register file, 16 more message
   * vectors would not (the first version kept them in registers and C2 spilled).
   */
  private static void compress(int[] cv, int[] msg, int[] counterLo, int[] counterHi, int flags) {
    IntVector v0 = IntVector.fromArray(SPECIES, cv, 0);
    IntVector v1 = IntVector.fromArray(SPECIES, cv, LANES);
    IntVector v2 = IntVector.fromArray(SPECIES, cv, 2 * LANES);
    IntVector v3 = IntVector.fromArray(SPECIES, cv, 3 * LANES);
    IntVector v4 = IntVector.fromArray(SPECIES, cv, 4 * LANES);
    IntVector v5 = IntVector.fromArray(SPECIES, cv, 5 * LANES);
    IntVector v6 = IntVector.fromArray(SPECIES, cv, 6 * LANES);
    IntVector v7 = IntVector.fromArray(SPECIES, cv, 7 * LANES);
    IntVector v8 = IntVector.broadcast(SPECIES, IV0);
    IntVector v9 = IntVector.broadcast(SPECIES, IV1);
    IntVector v10 = IntVector.broadcast(SPECIES, IV2);
    IntVector v11 = IntVector.broadcast(SPECIES, IV3);
    IntVector v12 = IntVector.fromArray(SPECIES, counterLo, 0);
    IntVector v13 = IntVector.fromArray(SPECIES, counterHi, 0);
    IntVector v14 = IntVector.broadcast(SPECIES, BLOCK_LEN);
    IntVector v15 = IntVector.broadcast(SPECIES, flags);
    for (int s = 0; s < SCHEDULE.length; s += 16) {
      v0 = v0.add(v4).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s]));
      v12 = v12.lanewise(XOR, v0).lanewise(ROR, 16);
      v8 = v8.add(v12);
      v4 = v4.lanewise(XOR, v8).lanewise(ROR, 12);
      v0 = v0.add(v4).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 1]));
      v12 = v12.lanewise(XOR, v0).lanewise(ROR, 8);
      v8 = v8.add(v12);
      v4 = v4.lanewise(XOR, v8).lanewise(ROR, 7);
      v1 = v1.add(v5).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 2]));
      v13 = v13.lanewise(XOR, v1).lanewise(ROR, 16);
      v9 = v9.add(v13);
      v5 = v5.lanewise(XOR, v9).lanewise(ROR, 12);
      v1 = v1.add(v5).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 3]));
      v13 = v13.lanewise(XOR, v1).lanewise(ROR, 8);
      v9 = v9.add(v13);
      v5 = v5.lanewise(XOR, v9).lanewise(ROR, 7);
      v2 = v2.add(v6).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 4]));
      v14 = v14.lanewise(XOR, v2).lanewise(ROR, 16);
      v10 = v10.add(v14);
      v6 = v6.lanewise(XOR, v10).lanewise(ROR, 12);
      v2 = v2.add(v6).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 5]));
      v14 = v14.lanewise(XOR, v2).lanewise(ROR, 8);
      v10 = v10.add(v14);
      v6 = v6.lanewise(XOR, v10).lanewise(ROR, 7);
      v3 = v3.add(v7).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 6]));
      v15 = v15.lanewise(XOR, v3).lanewise(ROR, 16);
      v11 = v11.add(v15);
      v7 = v7.lanewise(XOR, v11).lanewise(ROR, 12);
      v3 = v3.add(v7).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 7]));
      v15 = v15.lanewise(XOR, v3).lanewise(ROR, 8);
      v11 = v11.add(v15);
      v7 = v7.lanewise(XOR, v11).lanewise(ROR, 7);
      v0 = v0.add(v5).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 8]));
      v15 = v15.lanewise(XOR, v0).lanewise(ROR, 16);
      v10 = v10.add(v15);
      v5 = v5.lanewise(XOR, v10).lanewise(ROR, 12);
      v0 = v0.add(v5).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 9]));
      v15 = v15.lanewise(XOR, v0).lanewise(ROR, 8);
      v10 = v10.add(v15);
      v5 = v5.lanewise(XOR, v10).lanewise(ROR, 7);
      v1 = v1.add(v6).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 10]));
      v12 = v12.lanewise(XOR, v1).lanewise(ROR, 16);
      v11 = v11.add(v12);
      v6 = v6.lanewise(XOR, v11).lanewise(ROR, 12);
      v1 = v1.add(v6).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 11]));
      v12 = v12.lanewise(XOR, v1).lanewise(ROR, 8);
      v11 = v11.add(v12);
      v6 = v6.lanewise(XOR, v11).lanewise(ROR, 7);
      v2 = v2.add(v7).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 12]));
      v13 = v13.lanewise(XOR, v2).lanewise(ROR, 16);
      v8 = v8.add(v13);
      v7 = v7.lanewise(XOR, v8).lanewise(ROR, 12);
      v2 = v2.add(v7).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 13]));
      v13 = v13.lanewise(XOR, v2).lanewise(ROR, 8);
      v8 = v8.add(v13);
      v7 = v7.lanewise(XOR, v8).lanewise(ROR, 7);
      v3 = v3.add(v4).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 14]));
      v14 = v14.lanewise(XOR, v3).lanewise(ROR, 16);
      v9 = v9.add(v14);
      v4 = v4.lanewise(XOR, v9).lanewise(ROR, 12);
      v3 = v3.add(v4).add(IntVector.fromArray(SPECIES, msg, SCHEDULE[s + 15]));
      v14 = v14.lanewise(XOR, v3).lanewise(ROR, 8);
      v9 = v9.add(v14);
      v4 = v4.lanewise(XOR, v9).lanewise(ROR, 7);
    }
    v0.lanewise(XOR, v8).intoArray(cv, 0);
    v1.lanewise(XOR, v9).intoArray(cv, LANES);
    v2.lanewise(XOR, v10).intoArray(cv, 2 * LANES);
    v3.lanewise(XOR, v11).intoArray(cv, 3 * LANES);
    v4.lanewise(XOR, v12).intoArray(cv, 4 * LANES);
    v5.lanewise(XOR, v13).intoArray(cv, 5 * LANES);
    v6.lanewise(XOR, v14).intoArray(cv, 6 * LANES);
    v7.lanewise(XOR, v15).intoArray(cv, 7 * LANES);
  }

  private static int[] schedule() {
    // m[i] takes the old m[PERMUTATION[i]] after each round (see Blake3Compression.compress).
    int[] permutation = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
    int[] order = new int[16];
    for (int i = 0; i < 16; i++) {
      order[i] = i;
    }
    int[] s = new int[7 * 16];
    for (int round = 0; round < 7; round++) {
      for (int k = 0; k < 16; k++) {
        s[round * 16 + k] = order[k] * LANES;
      }
      int[] next = new int[16];
      for (int k = 0; k < 16; k++) {
        next[k] = order[permutation[k]];
      }
      order = next;
    }
    return s;
  }

  private static int[] transposeIndexes() {
    int[] t = new int[2 * STAGES * LANES];
    for (int k = 0; k < STAGES; k++) {
      int d = 1 << k;
      for (int c = 0; c < LANES; c++) {
        boolean low = (c & d) == 0;
        t[2 * k * LANES + c] = low ? c : LANES + c - d;
        t[(2 * k + 1) * LANES + c] = low ? c + d : LANES + c;
      }
    }
    return t;
  }

  @Override
  public String describe() {
    return "vector, " + LANES + " lanes";
  }
}
