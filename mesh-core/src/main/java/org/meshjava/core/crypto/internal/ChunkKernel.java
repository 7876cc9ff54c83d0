package org.meshjava.core.crypto.internal;

/**
 * Hashes many BLAKE3 chunks, or many parent nodes, at once: the leaves and inner nodes of a
 * subtree, none of them the root. Words are 32-bit little-endian, as BLAKE3 reads them.
 *
 * <p>Two implementations: {@link ScalarChunkKernel}, one node at a time on plain Java, and {@code
 * VectorChunkKernel}, as many nodes as the CPU's vector has 32-bit lanes through the incubating
 * Vector API. {@link #fastest()} picks the second only where the JVM was started with that module.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface ChunkKernel {

  /**
   * Hashes {@code count} whole chunks (256 words each) that lie one after another in {@code words}
   * from {@code wordOff}, the first with chunk counter {@code counter}, in {@code mode}, and writes
   * each one's 8-word chaining value to {@code out} from {@code outOff}.
   */
  void chunks(
      int[] words, int wordOff, int count, long counter, Blake3Mode mode, int[] out, int outOff);

  /**
   * Hashes {@code count} parent nodes whose blocks (two chaining values, 16 words) lie one after
   * another in {@code cvs} from {@code off}, writing each 8-word chaining value to {@code out} from
   * {@code outOff}. {@code out} may be {@code cvs} with {@code outOff <= off}: each parent is read
   * before any output can overwrite it.
   */
  void parents(int[] cvs, int off, int count, Blake3Mode mode, int[] out, int outOff);

  /** How this kernel computes, for benchmarks and logs: "scalar" or "vector, 16 lanes". */
  String describe();

  /**
   * The vector kernel when the {@code jdk.incubator.vector} module is in the boot layer (the JVM
   * was started with {@code --add-modules jdk.incubator.vector}) and the CPU's vector holds at
   * least 4 ints (behind {@link WarmingChunkKernel}, which hashes on scalar until the vector code
   * is compiled); otherwise the scalar kernel. The vector class is only loaded in the first case,
   * so a JVM without the module never sees a reference to it.
   */
  static ChunkKernel fastest() {
    return Selection.FASTEST;
  }

  /** Holds the choice, made once per JVM. */
  final class Selection {
    static final ChunkKernel FASTEST = choose();

    private Selection() {}

    private static ChunkKernel choose() {
      if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
        return ScalarChunkKernel.INSTANCE;
      }
      try {
        ChunkKernel vector =
            (ChunkKernel)
                Class.forName("org.meshjava.core.crypto.internal.VectorChunkKernel")
                    .getDeclaredField("INSTANCE")
                    .get(null);
        return vector != null ? new WarmingChunkKernel(vector) : ScalarChunkKernel.INSTANCE;
      } catch (ReflectiveOperationException | LinkageError e) {
        // A JVM whose module cannot be linked (or an unusable vector shape) hashes on scalar.
        return ScalarChunkKernel.INSTANCE;
      }
    }
  }
}
