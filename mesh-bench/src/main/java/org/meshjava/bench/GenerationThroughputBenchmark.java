package org.meshjava.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.meshjava.core.ContentId;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.engine.jlama.testing.TinyLlama;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Greedy generation throughput of the Jlama engine on the tiny seeded Llama model (2 layers, hidden
 * 64, vocabulary 256): 8 prompt tokens, up to 64 generated. The {@code tokens} counter is output
 * tokens per second. Run: {@code ./mesh bench GenerationThroughputBenchmark}.
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class GenerationThroughputBenchmark extends ThroughputBenchmark {
  static final TokenSequence PROMPT = TokenSequence.of(1, 75, 104, 108, 111, 33, 40, 50);

  Path dir;
  JlamaEngine engine;
  ServeRequest request;

  /** Output tokens, reported per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Tokens {
    public long tokens;
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("tiny-llama");
    TinyLlama.write(dir, 42);
    engine = JlamaEngine.builder(dir).build();
    request =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}),
            PROMPT.size(),
            new ServeBounds(64, Fidelity.F1, Long.MAX_VALUE));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    engine.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Benchmark
  public EngineResult generate(Tokens counter) throws Exception {
    EngineResult r = engine.serve(request, PROMPT);
    counter.tokens += r.tokens().size();
    return r;
  }
}
