package org.meshjava.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The schedule of the microbenchmarks whose figures are compared as ratios (the steward against its
 * cryptography floor, the log against none, one signer against another): the average time of one
 * call in microseconds, three 1 s warm-up iterations, five 1 s measured ones, one fork. A benchmark
 * extends it so that all of them are measured alike; JMH's annotations are inherited.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public abstract class MicrosecondBenchmark {
  /** For subclasses. */
  protected MicrosecondBenchmark() {}
}
