package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Serves per second through one steward whose engine does real work (the reference engine, 32
 * tokens), to be run with {@code -t 1} and {@code -t 2}: how throughput scales on two cores when
 * the serial part of a serve (sealing into the chain) is not the whole of it.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
public class ServeThroughputBenchmark extends ThroughputBenchmark {
  private Steward steward;
  private final AtomicLong counter = new AtomicLong();

  /** A steward over one reference engine. */
  @Setup
  public void setup() {
    steward =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceEngine.builder().workPerToken(16).build())
            .build();
  }

  /** Releases the steward. */
  @TearDown
  public void tearDown() {
    steward.close();
  }

  /** One serve of 32 tokens, each prompt distinct. */
  @Benchmark
  public ServeResult serve() throws Exception {
    byte[] prompt = ("throughput " + counter.incrementAndGet()).getBytes(StandardCharsets.UTF_8);
    ServeRequest req =
        ServeRequest.generation(
            ContentId.ofBytes(prompt), 16, new ServeBounds(32, Fidelity.F1, 1_000_000));
    return steward.serve(req, TokenSequence.of(new int[16]));
  }
}
