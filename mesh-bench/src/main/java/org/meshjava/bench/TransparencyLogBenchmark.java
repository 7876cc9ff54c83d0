package org.meshjava.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.internal.MerkleTree;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The transparency log's costs (SPEC.md §65): an inclusion and a consistency proof at a random
 * point of a log of {@code size} receipts (issue 16 asks for milliseconds at 1 000 000), and
 * appending one leaf, the only work the log adds to a serve. Building the log in setup is also what
 * a restart does per receipt.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgs = "-Xmx2g")
public class TransparencyLogBenchmark {
  @Param({"1000000"})
  public int size;

  private MerkleTree tree;
  private MerkleTree growing;
  private final SplittableRandom random = new SplittableRandom(7);

  private static byte[] entry(long i) {
    return ByteBuffer.allocate(32).putLong(i).array();
  }

  /** Builds the log of {@code size} leaves (32-byte entries, like envelope ids). */
  @Setup(Level.Trial)
  public void build() {
    tree = new MerkleTree();
    for (long i = 0; i < size; i++) {
      tree.append(entry(i));
    }
  }

  /**
   * A fresh log per iteration, so appends measure a log of realistic size, not an ever-growing one.
   */
  @Setup(Level.Iteration)
  public void fresh() {
    growing = new MerkleTree();
  }

  @Benchmark
  public InclusionProof inclusionProof() throws LogException {
    return tree.inclusionProof(random.nextInt(size), size);
  }

  @Benchmark
  public ConsistencyProof consistencyProof() throws LogException {
    return tree.consistencyProof(1 + random.nextInt(size), size);
  }

  @Benchmark
  public long append() {
    return growing.append(entry(growing.size()));
  }
}
