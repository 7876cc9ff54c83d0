package org.meshjava.bench;

import org.meshjava.core.crypto.SigningKey;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the transparency log adds to a serve (issue 16: at most 1.1 ×): {@code Steward.serve} with a
 * zero-work engine on a steward that keeps the log (a leaf per receipt, a checkpoint signed and
 * journalled every 1024) against one built with {@code transparencyLog(false)}, in the same run.
 * With no engine work the serve is the steward alone, so this is the largest the ratio can be.
 */
public class TransparencyLogServeBenchmark extends MicrosecondBenchmark {
  private Steward logged;
  private Steward unlogged;
  private BenchServe serve;

  /** Builds the two stewards, the same but for the log. */
  @Setup
  public void setup() {
    logged = steward(true);
    unlogged = steward(false);
    serve = BenchServe.of("benchmark prompt");
  }

  /** A zero-work steward with a fresh key, keeping the transparency log or not. */
  static Steward steward(boolean log) {
    return ServeOverheadBenchmark.ZeroWorkEngine.steward(SigningKey.generate())
        .transparencyLog(log)
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
    return logged.serve(serve.request(), serve.prompt());
  }

  /** A serve on the steward without it. */
  @Benchmark
  public ServeResult serveWithoutLog() throws Exception {
    return unlogged.serve(serve.request(), serve.prompt());
  }
}
