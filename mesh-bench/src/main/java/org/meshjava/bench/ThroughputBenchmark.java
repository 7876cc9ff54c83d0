package org.meshjava.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What the throughput benchmarks share: operations per second, in one fork. A benchmark extends it
 * and states its own warm-up and measurement (and its own fork where it needs JVM options); JMH's
 * annotations are inherited, and a subclass's replace its base's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
public abstract class ThroughputBenchmark {
  /** For subclasses. */
  protected ThroughputBenchmark() {}
}
