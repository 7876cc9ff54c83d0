package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.engine.onnx.DecisionPayload;
import org.meshjava.engine.onnx.OnnxDecisionEngine;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of one typed decision on the MiniLM engine (all-MiniLM-L6-v2 in fp32 through ONNX
 * Runtime, one intra-op thread), for 1 and 3 questions. Sample-time mode, so JMH reports the p50
 * and p99 per decision. Run: {@code ./mesh bench DecisionLatencyBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DecisionLatencyBenchmark {
  static final String STATE =
      "I was charged twice for my subscription this month and I want my money back.";
  static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Choice(
              "Which department should handle this message?",
              List.of("billing and refunds", "technical support", "sales")),
          new DecisionQuestion.Proposition("The customer is asking for a refund."),
          new DecisionQuestion.Score(
              "How angry is the customer?", List.of("calm", "annoyed", "furious")));

  @Param({"1", "3"})
  public int questions;

  OnnxDecisionEngine engine;
  List<DecisionQuestion> asked;
  DecisionPayload payload;
  ServeRequest request;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    engine = OnnxDecisionEngine.builder().build();
    asked = QUESTIONS.subList(0, questions);
    payload = engine.payload(asked, STATE);
    request =
        ServeRequest.decision(
            ContentId.ofBytes(STATE.getBytes(StandardCharsets.UTF_8)),
            payload.tokens().size(),
            new ServeBounds(0, Fidelity.F1, Long.MAX_VALUE),
            DecisionQuestion.shapeOf(asked, payload.schemaTokens()));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engine.close();
  }

  @Benchmark
  public DecisionResult decide() throws Exception {
    return engine.decide(request, payload.tokens(), asked);
  }
}
