package org.meshjava.core.crypto.internal;

import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_LEN;
import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_END;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_START;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.PARENT;

/** The {@link ChunkKernel} on plain Java: one compression at a time. Needs no JVM flag. */
public final class ScalarChunkKernel implements ChunkKernel {
  public static final ScalarChunkKernel INSTANCE = new ScalarChunkKernel();

  private static final int BLOCKS_PER_CHUNK = CHUNK_WORDS / BLOCK_WORDS;

  private ScalarChunkKernel() {}

  @Override
  public void chunks(
      int[] words, int wordOff, int count, long counter, Blake3Mode mode, int[] out, int outOff) {
    int[] state = new int[16];
    for (int c = 0; c < count; c++) {
      System.arraycopy(mode.key(), 0, state, 0, 8);
      int base = wordOff + c * CHUNK_WORDS;
      for (int b = 0; b < BLOCKS_PER_CHUNK; b++) {
        int blockFlags =
            mode.flags() | (b == 0 ? CHUNK_START : 0) | (b == BLOCKS_PER_CHUNK - 1 ? CHUNK_END : 0);
        Blake3Compression.compress(
            state, 0, words, base + b * BLOCK_WORDS, counter + c, BLOCK_LEN, blockFlags, state, 0);
      }
      System.arraycopy(state, 0, out, outOff + c * 8, 8);
    }
  }

  @Override
  public void parents(int[] cvs, int off, int count, Blake3Mode mode, int[] out, int outOff) {
    int[] state = new int[16];
    for (int p = 0; p < count; p++) {
      Blake3Compression.compress(
          mode.key(), 0, cvs, off + p * BLOCK_WORDS, 0, BLOCK_LEN, mode.flags() | PARENT, state, 0);
      System.arraycopy(state, 0, out, outOff + p * 8, 8);
    }
  }

  @Override
  public String describe() {
    return "scalar";
  }
}
