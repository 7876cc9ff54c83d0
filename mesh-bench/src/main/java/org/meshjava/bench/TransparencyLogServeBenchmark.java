package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the transparency log adds to a serve (issue 16: at most 1.1 ×): {@code Steward.serve} with a
 * zero-work engine on a steward that keeps the log (a leaf per receipt, a checkpoint signed and
 * journalled every 1024) against one built with {@code transparencyLog(false)}, in the same run.
 * With no engine work the serve is the steward alone, so this is the largest the ratio can be.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TransparencyLogServeBenchmark {
  private Steward logged;
  private Steward unlogged;
  private ServeRequest request;
  private TokenSequence prompt;

  /** Builds the two stewards, the same but for the log. */
  @Setup
  public void setup() {
    logged = steward(true);
    unlogged = steward(false);
    byte[] text = "benchmark prompt".getBytes(StandardCharsets.UTF_8);
    request =
        ServeRequest.generation(
            ContentId.ofBytes(text), 16, new ServeBounds(16, Fidelity.F1, 1_000_000));
    prompt = TokenSequence.of(new int[16]);
  }

  private static Steward steward(boolean log) {
    return Steward.builder(SigningKey.generate())
        .chainHead(ChainHead.GENESIS)
        .transparencyLog(log)
        .backend(new ServeOverheadBenchmark.ZeroWorkEngine())
        .build();
  }

  /** Closes both stewards. */
  @TearDown
  public void close() {
    logged.close();
    unlogged.close();
  }

  /** A serve on the steward that keeps the log. */
  @Benchmark
  public ServeResult serveWithLog() throws Exception {
    return logged.serve(request, prompt);
  }

  /** A serve on the steward without it. */
  @Benchmark
  public ServeResult serveWithoutLog() throws Exception {
    return unlogged.serve(request, prompt);
  }
}
