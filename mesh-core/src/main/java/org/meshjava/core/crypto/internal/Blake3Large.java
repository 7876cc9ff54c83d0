package org.meshjava.core.crypto.internal;

import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_LEN;
import static org.meshjava.core.crypto.internal.Blake3Compression.BLOCK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_END;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_LEN;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_START;
import static org.meshjava.core.crypto.internal.Blake3Compression.CHUNK_WORDS;
import static org.meshjava.core.crypto.internal.Blake3Compression.DERIVE_KEY_CONTEXT;
import static org.meshjava.core.crypto.internal.Blake3Compression.DERIVE_KEY_MATERIAL;
import static org.meshjava.core.crypto.internal.Blake3Compression.KEYED_HASH;
import static org.meshjava.core.crypto.internal.Blake3Compression.PARENT;
import static org.meshjava.core.crypto.internal.Blake3Compression.ROOT;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * BLAKE3 for large inputs: model weights (§3.6), gigabytes at a time. Exactly BLAKE3, in all three
 * modes and at any output length (the tests hold it to the official vectors and to BouncyCastle's
 * implementation). {@link org.meshjava.core.crypto.Blake3}, for short inputs, runs the same code on
 * the scalar kernel alone.
 *
 * <p>Design. BLAKE3 is a binary tree over 1024-byte chunks, and any aligned run of 2<sup>k</sup>
 * chunks is a subtree whose chaining value depends on nothing outside it. This class cuts the input
 * into units of {@value #UNIT_CHUNKS} chunks (256 KiB) and hashes each unit's chunks many at once
 * through a {@link ChunkKernel} (one vector lane per chunk when the JVM has the incubating Vector
 * API, plain Java otherwise), folds the unit's chunk values pairwise the same way, and pushes the
 * unit's value onto BLAKE3's usual stack of subtree values. The last unit, which holds the root's
 * right edge, goes through the ordinary finalisation. For a file, {@link #hash(Path, int,
 * LongConsumer)} hands out the units of a 64 MiB window to several threads, each reading its unit
 * with a positional read into its own buffer, so memory stays under a megabyte per thread whatever
 * the file's size. (Positional reads measured faster here than mapping windows: mapping pays a page
 * fault per few pages and an unmap per window.)
 *
 * <p>A {@link Hasher} is not thread-safe; the static methods are.
 */
public final class Blake3Large {
  /** Chunks in a unit: a power of two, so that every unit is a whole subtree. */
  static final int UNIT_CHUNKS = 256;

  /** Bytes in a unit. */
  static final int UNIT_BYTES = UNIT_CHUNKS * CHUNK_LEN;

  private static final int LOG2_UNIT_CHUNKS = Integer.numberOfTrailingZeros(UNIT_CHUNKS);

  /** Units a file window maps at once (64 MiB): bounds what one pass keeps mapped. */
  static final int WINDOW_UNITS = 256;

  private static final boolean BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

  private static final ValueLayout.OfInt LE_INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private Blake3Large() {}

  /** Returns a streaming hasher in plain hash mode. */
  public static Hasher newHasher() {
    return plain(ChunkKernel.fastest());
  }

  /**
   * Returns a streaming hasher in keyed mode.
   *
   * @param key exactly 32 bytes
   */
  public static Hasher newKeyedHasher(byte[] key) {
    return keyed(key, ChunkKernel.fastest());
  }

  /** Returns a streaming hasher in key-derivation mode under {@code context}. */
  public static Hasher newDeriveKeyHasher(String context) {
    return deriveKey(context, ChunkKernel.fastest());
  }

  public static Hasher plain(ChunkKernel kernel) {
    return new Hasher(Blake3Mode.hash(), kernel);
  }

  public static Hasher keyed(byte[] key, ChunkKernel kernel) {
    if (key.length != 32) {
      throw new IllegalArgumentException("a BLAKE3 key is 32 bytes, got " + key.length);
    }
    return new Hasher(new Blake3Mode(words(key), KEYED_HASH), kernel);
  }

  public static Hasher deriveKey(String context, ChunkKernel kernel) {
    byte[] contextKey =
        new Hasher(new Blake3Mode(Blake3Compression.iv(), DERIVE_KEY_CONTEXT), kernel)
            .update(context.getBytes(StandardCharsets.UTF_8))
            .finish();
    return new Hasher(new Blake3Mode(words(contextKey), DERIVE_KEY_MATERIAL), kernel);
  }

  /**
   * How chunks are hashed in this JVM: {@code "vector, N lanes"} when it was started with {@code
   * --add-modules jdk.incubator.vector}, {@code "scalar"} otherwise.
   */
  public static String kernel() {
    return ChunkKernel.fastest().describe();
  }

  /**
   * Returns the 32-byte BLAKE3 hash of the file's bytes, read through a window of memory mapping,
   * hashed on {@code threads} threads (the caller's plus {@code threads - 1} it starts and stops).
   *
   * @param progress told the number of bytes hashed so far, after each window and at the end; may
   *     be called from the calling thread only
   * @throws IOException if the file cannot be opened, mapped or read
   */
  public static byte[] hash(Path file, int threads, LongConsumer progress) throws IOException {
    Objects.requireNonNull(progress, "progress");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return hash(ch, threads, progress, ChunkKernel.fastest());
    }
  }

  static byte[] hash(FileChannel ch, int threads, LongConsumer progress, ChunkKernel kernel)
      throws IOException {
    long size = ch.size();
    Hasher hasher = new Hasher(Blake3Mode.hash(), kernel);
    // Whole units strictly before the last byte: their values are final and go on the stack.
    long units = size == 0 ? 0 : (size - 1) / UNIT_BYTES;
    UnitWorker[] workers = new UnitWorker[(int) Math.min(threads, Math.max(1, units))];
    for (int i = 0; i < workers.length; i++) {
      workers[i] = new UnitWorker(kernel, hasher.mode);
    }
    ExecutorService pool =
        workers.length > 1
            ? Executors.newFixedThreadPool(
                workers.length - 1, Thread.ofPlatform().daemon().name("mesh-blake3").factory())
            : null;
    try {
      int[] cvs = new int[WINDOW_UNITS * 8];
      for (long first = 0; first < units; first += WINDOW_UNITS) {
        int count = (int) Math.min(WINDOW_UNITS, units - first);
        runWindow(workers, pool, ch, first, count, cvs);
        for (int u = 0; u < count; u++) {
          hasher.pushSubtree(cvs, u * 8, LOG2_UNIT_CHUNKS);
        }
        progress.accept((first + count) * UNIT_BYTES);
      }
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
    if (size > 0) {
      long tail = units * UNIT_BYTES;
      ByteBuffer buf = workers[0].buffer;
      readFully(ch, buf.clear().limit((int) (size - tail)), tail);
      hasher.update(MemorySegment.ofBuffer(buf.flip()));
    }
    if (ch.size() != size) {
      throw new IOException("the file changed size while it was hashed");
    }
    progress.accept(size);
    return hasher.finish();
  }

  private static void runWindow(
      UnitWorker[] workers,
      ExecutorService pool,
      FileChannel ch,
      long firstUnit,
      int count,
      int[] cvs)
      throws IOException {
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> running = new ArrayList<>();
    for (int i = 1; i < workers.length; i++) {
      UnitWorker w = workers[i];
      running.add(pool.submit(() -> w.drain(ch, firstUnit, count, next, cvs)));
    }
    workers[0].drain(ch, firstUnit, count, next, cvs);
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while hashing", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IOException("hashing a window failed", e.getCause());
      }
    }
  }

  /** Fills {@code buf} from {@code position}; a file that ends early changed under us. */
  private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.read(buf, position + buf.position()) < 0) {
        throw new IOException("the file changed size while it was hashed");
      }
    }
  }

  /** One thread's share of a window: its own unit buffer, so threads share nothing but results. */
  private static final class UnitWorker {
    private final ChunkKernel kernel;
    private final Blake3Mode mode;
    private final ByteBuffer buffer =
        ByteBuffer.allocateDirect(UNIT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment bytes = MemorySegment.ofBuffer(buffer);
    private final int[] words = new int[UNIT_BYTES / 4];
    private final int[] chunkCvs = new int[UNIT_CHUNKS * 8];

    UnitWorker(ChunkKernel kernel, Blake3Mode mode) {
      this.kernel = kernel;
      this.mode = mode;
    }

    Void drain(FileChannel ch, long firstUnit, int count, AtomicInteger next, int[] cvs)
        throws IOException {
      for (int u = next.getAndIncrement(); u < count; u = next.getAndIncrement()) {
        readFully(ch, buffer.clear(), (firstUnit + u) * UNIT_BYTES);
        MemorySegment.copy(bytes, LE_INT, 0, words, 0, words.length);
        subtree(kernel, words, UNIT_CHUNKS, (firstUnit + u) * UNIT_CHUNKS, mode, chunkCvs);
        System.arraycopy(chunkCvs, 0, cvs, u * 8, 8);
      }
      return null;
    }
  }

  /**
   * Hashes {@code chunks} (a power of two) whole chunks from {@code words[0]} as one subtree and
   * leaves its chaining value in {@code scratch[0..8)}; {@code scratch} holds 8 words per chunk.
   */
  static void subtree(
      ChunkKernel kernel, int[] words, int chunks, long counter, Blake3Mode mode, int[] scratch) {
    kernel.chunks(words, 0, chunks, counter, mode, scratch, 0);
    for (int n = chunks / 2; n >= 1; n /= 2) {
      kernel.parents(scratch, 0, n, mode, scratch, 0);
    }
  }

  private static int[] words(byte[] bytes) {
    int[] w = new int[bytes.length / 4];
    MemorySegment.copy(MemorySegment.ofArray(bytes), LE_INT, 0, w, 0, w.length);
    return w;
  }

  /** An incremental BLAKE3 computation over the fast kernel. Not thread-safe; use once. */
  public static final class Hasher {
    private final Blake3Mode mode;
    private final ChunkKernel kernel;

    /** The current unit's bytes, read as little-endian words once a unit is hashed. */
    private int[] unit;

    private int fill;
    private int[] chunkCvs;

    /** Chaining values of finished subtrees, left to right, at most one per tree level. */
    private int[] stack;

    private int depth;
    private long chunks;

    Hasher(Blake3Mode mode, ChunkKernel kernel) {
      this.mode = mode;
      this.kernel = kernel;
    }

    /** Absorbs {@code bytes}. */
    public Hasher update(byte[] bytes) {
      return update(bytes, 0, bytes.length);
    }

    /** Absorbs {@code len} bytes of {@code bytes} from {@code off}. */
    public Hasher update(byte[] bytes, int off, int len) {
      Objects.checkFromIndexSize(off, len, bytes.length);
      return update(MemorySegment.ofArray(bytes).asSlice(off, len));
    }

    /** Absorbs the bytes of {@code segment} (a heap, native or mapped segment). */
    public Hasher update(MemorySegment segment) {
      long off = 0;
      long len = segment.byteSize();
      while (len > 0) {
        if (fill == UNIT_BYTES) {
          // More input follows, so this unit is not the root's: hash it as a whole subtree.
          littleEndian(0, unit.length);
          if (chunkCvs == null) {
            chunkCvs = new int[UNIT_CHUNKS * 8];
          }
          subtree(kernel, unit, UNIT_CHUNKS, chunks, mode, chunkCvs);
          merge(chunkCvs, 0, LOG2_UNIT_CHUNKS);
          fill = 0;
        }
        int n = (int) Math.min(len, UNIT_BYTES - fill);
        ensure(fill + n);
        MemorySegment.copy(segment, off, MemorySegment.ofArray(unit), fill, n);
        fill += n;
        off += n;
        len -= n;
      }
      return this;
    }

    /**
     * Pushes the chaining value of a whole subtree of 2<sup>log2</sup> chunks that follows all
     * input so far, merging completed subtrees as BLAKE3's stack does. Only with no buffered bytes.
     */
    void pushSubtree(int[] cvs, int off, int log2) {
      if (fill != 0) {
        throw new IllegalStateException("a subtree cannot follow buffered bytes");
      }
      merge(cvs, off, log2);
    }

    /** Pushes a subtree's value, merging each subtree it completes (the new total's zero bits). */
    private void merge(int[] cvs, int off, int log2) {
      if (stack == null) {
        stack = new int[64 * 8];
      }
      long total = chunks + (1L << log2);
      int[] block = new int[16];
      int[] out = new int[16];
      System.arraycopy(cvs, off, block, 8, 8);
      for (long t = total >>> log2; (t & 1) == 0; t >>>= 1) {
        depth--;
        System.arraycopy(stack, depth * 8, block, 0, 8);
        Blake3Compression.compress(
            mode.key(), 0, block, 0, 0, BLOCK_LEN, mode.flags() | PARENT, out, 0);
        System.arraycopy(out, 0, block, 8, 8);
      }
      System.arraycopy(block, 8, stack, depth * 8, 8);
      depth++;
      chunks = total;
    }

    /** Returns the 32-byte output. */
    public byte[] finish() {
      return finish(Blake3Compression.OUT_LEN);
    }

    /** Returns {@code length} bytes of extended output. */
    public byte[] finish(int length) {
      if (length < 0) {
        throw new IllegalArgumentException("negative output length " + length);
      }
      // The last block of the last chunk is zero-padded.
      int padded = Math.max(BLOCK_LEN, roundUp(fill, BLOCK_LEN));
      ensure(padded);
      MemorySegment.ofArray(unit).asSlice(fill, padded - fill).fill((byte) 0);
      littleEndian(0, padded / 4);
      int wholeChunks = fill == 0 ? 0 : (fill - 1) / CHUNK_LEN;
      if (wholeChunks > 0) {
        int[] cvs = new int[wholeChunks * 8];
        kernel.chunks(unit, 0, wholeChunks, chunks, mode, cvs, 0);
        for (int c = 0; c < wholeChunks; c++) {
          merge(cvs, c * 8, 0);
        }
      }
      // The final chunk: all blocks but its last chain; the last is an output node.
      int start = wholeChunks * CHUNK_WORDS;
      int last = fill - wholeChunks * CHUNK_LEN;
      int blocks = Math.max(1, (last + BLOCK_LEN - 1) / BLOCK_LEN);
      int[] cv = mode.key().clone();
      int[] out = new int[16];
      for (int b = 0; b < blocks - 1; b++) {
        Blake3Compression.compress(
            cv,
            0,
            unit,
            start + b * BLOCK_WORDS,
            chunks,
            BLOCK_LEN,
            mode.flags() | (b == 0 ? CHUNK_START : 0),
            out,
            0);
        System.arraycopy(out, 0, cv, 0, 8);
      }
      int[] block = new int[16];
      System.arraycopy(unit, start + (blocks - 1) * BLOCK_WORDS, block, 0, 16);
      long counter = chunks;
      int blockLen = last - (blocks - 1) * BLOCK_LEN;
      int nodeFlags = mode.flags() | CHUNK_END | (blocks == 1 ? CHUNK_START : 0);
      // Fold the right edge into the stack, right to left; the last node folded is the root.
      while (depth > 0) {
        Blake3Compression.compress(cv, 0, block, 0, counter, blockLen, nodeFlags, out, 0);
        depth--;
        System.arraycopy(stack, depth * 8, block, 0, 8);
        System.arraycopy(out, 0, block, 8, 8);
        System.arraycopy(mode.key(), 0, cv, 0, 8);
        counter = 0;
        blockLen = BLOCK_LEN;
        nodeFlags = mode.flags() | PARENT;
      }
      byte[] result = new byte[length];
      MemorySegment bytes = MemorySegment.ofArray(result);
      for (int i = 0; i * BLOCK_LEN < length; i++) {
        Blake3Compression.compress(cv, 0, block, 0, i, blockLen, nodeFlags | ROOT, out, 0);
        for (int w = 0; w < 16 && i * BLOCK_LEN + w * 4 < length; w++) {
          int at = i * BLOCK_LEN + w * 4;
          if (at + 4 <= length) {
            bytes.set(LE_INT, at, out[w]);
          } else {
            for (int k = 0; at + k < length; k++) {
              result[at + k] = (byte) (out[w] >>> (8 * k));
            }
          }
        }
      }
      return result;
    }

    /**
     * Grows the unit buffer to hold {@code bytes} (whole blocks), doubling up to a unit: a short
     * message (a content id's few hundred bytes) never allocates the 256 KiB a file needs.
     */
    private void ensure(int bytes) {
      int have = unit == null ? 0 : unit.length * 4;
      if (have >= bytes) {
        return;
      }
      int want = Math.min(UNIT_BYTES, Math.max(roundUp(bytes, BLOCK_LEN), 2 * have));
      unit = unit == null ? new int[want / 4] : java.util.Arrays.copyOf(unit, want / 4);
    }

    /** On a big-endian JVM, turns native words copied from bytes into little-endian ones. */
    private void littleEndian(int from, int to) {
      if (BIG_ENDIAN) {
        for (int i = from; i < to; i++) {
          unit[i] = Integer.reverseBytes(unit[i]);
        }
      }
    }

    private static int roundUp(int n, int to) {
      return (n + to - 1) / to * to;
    }
  }
}
