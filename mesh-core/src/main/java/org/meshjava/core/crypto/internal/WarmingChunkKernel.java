package org.meshjava.core.crypto.internal;

/**
 * Hashes on the scalar kernel until the vector kernel has been compiled, then on the vector one.
 *
 * <p>Why: the Vector API is fast only once C2 has compiled the code that uses it; interpreted or
 * C1-compiled, each vector operation is an object, and the kernel runs about 20 times slower than
 * scalar Java. A model load is usually the first and only large hash in a process, so leaving the
 * warm-up to it cost several seconds on a loaded 2-core machine (a 512 MiB file at 50 MB/s before
 * C2 was done). Instead a daemon thread, started when the kernel is first chosen, exercises the
 * vector kernel on 16 chunks in a loop until one call takes under half what the same call takes on
 * the scalar kernel (or gives up after {@value #GIVE_UP_SECONDS} s and leaves hashing on scalar);
 * hashing meanwhile runs on scalar at its full speed.
 *
 * <p>Thread-safe.
 */
final class WarmingChunkKernel implements ChunkKernel {
  private static final int GIVE_UP_SECONDS = 60;
  private static final int WARM_CHUNKS = 16;

  private final ChunkKernel vector;
  private volatile boolean warm;

  WarmingChunkKernel(ChunkKernel vector) {
    this.vector = vector;
    Thread t = new Thread(this::warmUp, "mesh-blake3-warm-up");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  private void warmUp() {
    int[] words = new int[WARM_CHUNKS * Blake3Compression.CHUNK_WORDS];
    int[] cvs = new int[WARM_CHUNKS * 8];
    Blake3Mode mode = Blake3Mode.hash();
    long deadline = System.nanoTime() + GIVE_UP_SECONDS * 1_000_000_000L;
    long bestScalar = Long.MAX_VALUE;
    long bestVector = Long.MAX_VALUE;
    for (int i = 0; System.nanoTime() < deadline; i++) {
      if (i % 16 == 0) {
        long t0 = System.nanoTime();
        Blake3Large.subtree(ScalarChunkKernel.INSTANCE, words, WARM_CHUNKS, i, mode, cvs);
        bestScalar = Math.min(bestScalar, System.nanoTime() - t0);
      }
      long t0 = System.nanoTime();
      Blake3Large.subtree(vector, words, WARM_CHUNKS, i, mode, cvs);
      bestVector = Math.min(bestVector, System.nanoTime() - t0);
      if (i >= 256 && bestVector * 2 < bestScalar) {
        warm = true;
        return;
      }
    }
  }

  /** Whether hashing has moved to the vector kernel. */
  boolean isWarm() {
    return warm;
  }

  private ChunkKernel current() {
    return warm ? vector : ScalarChunkKernel.INSTANCE;
  }

  @Override
  public void chunks(
      int[] words, int wordOff, int count, long counter, Blake3Mode mode, int[] out, int outOff) {
    current().chunks(words, wordOff, count, counter, mode, out, outOff);
  }

  @Override
  public void parents(int[] cvs, int off, int count, Blake3Mode mode, int[] out, int outOff) {
    current().parents(cvs, off, count, mode, out, outOff);
  }

  @Override
  public String describe() {
    return vector.describe();
  }
}
