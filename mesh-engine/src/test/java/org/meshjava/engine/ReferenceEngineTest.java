package org.meshjava.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;

/** The reference engine (§5): deterministic, bounded by max_tokens, working per token. */
class ReferenceEngineTest {
  private static final TokenSequence PROMPT = TokenSequence.of(101, 2023, 7, 9);

  private static ServeRequest generation(String prompt, long maxTokens) {
    return ServeRequest.generation(
        ContentId.ofBytes(prompt.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        PROMPT.size(),
        new ServeBounds(maxTokens, Fidelity.F1, 1_000_000_000L));
  }

  @Test
  void serve_sameRequestAndPayload_yieldsTheSameTokens_evenOnAnotherInstance() {
    ServeRequest request = generation("hello", 64);

    EngineResult a = ReferenceEngine.builder().build().serve(request, PROMPT);
    EngineResult b = ReferenceEngine.builder().build().serve(request, PROMPT);

    assertThat(a.tokens()).isEqualTo(b.tokens());
    assertThat(a.outcome()).isEqualTo(b.outcome());
    assertThat(ReferenceEngine.builder().build().deterministic()).isTrue();
  }

  @Test
  void serve_otherPayloadOrOtherRequest_yieldsOtherTokens() {
    ReferenceEngine engine = ReferenceEngine.builder().build();
    TokenSequence base = engine.serve(generation("hello", 64), PROMPT).tokens();

    assertThat(engine.serve(generation("hello", 64), TokenSequence.of(101, 2023, 7, 10)).tokens())
        .isNotEqualTo(base);
    assertThat(engine.serve(generation("hullo", 64), PROMPT).tokens()).isNotEqualTo(base);
  }

  @Test
  void serve_emitsExactlyMaxTokens_allAcceptedAndBelowTheVocabulary() {
    EngineResult r = ReferenceEngine.builder().build().serve(generation("hello", 2000), PROMPT);

    assertThat(r.tokens().size()).isEqualTo(2000);
    assertThat(r.outcome().tokensIn()).isEqualTo(PROMPT.size());
    assertThat(r.outcome().tokensOut()).isEqualTo(2000);
    assertThat(r.outcome().counters().tokensAccepted()).isEqualTo(2000);
    assertThat(r.outcome().decision()).isEmpty();
    for (int i = 0; i < r.tokens().size(); i++) {
      assertThat(r.tokens().get(i)).isBetween(0L, (long) ReferenceEngine.VOCABULARY - 1);
    }
  }

  @Test
  void serve_withZeroMaxTokens_emitsNothing() {
    EngineResult r = ReferenceEngine.builder().build().serve(generation("hello", 0), PROMPT);

    assertThat(r.tokens().size()).isZero();
    assertThat(r.outcome().tokensOut()).isZero();
  }

  @Test
  void serve_workGrowsInProportionToTheTokensServed() {
    AtomicLong work = new AtomicLong();
    ReferenceEngine engine =
        ReferenceEngine.builder().workPerToken(16).observeWork(work::addAndGet).build();

    engine.serve(generation("hello", 10), PROMPT);
    long ten = work.getAndSet(0);
    engine.serve(generation("hello", 2000), PROMPT);
    long twoThousand = work.get();

    assertThat(ten).isEqualTo(10 * 16);
    assertThat(twoThousand).isEqualTo(2000 * 16);
  }

  @Test
  void serve_withZeroWorkPerToken_stillDoesOneCompressionPerToken() {
    AtomicLong work = new AtomicLong();
    ReferenceEngine engine =
        ReferenceEngine.builder().workPerToken(0).observeWork(work::addAndGet).build();

    engine.serve(generation("hello", 50), PROMPT);

    assertThat(work.get()).isEqualTo(50);
  }

  @Test
  void serve_ofADecision_emitsNoTokensAndReportsTheRequestedShape() {
    DecisionShape shape = new DecisionShape(2, 9, 3);
    ServeRequest request =
        ServeRequest.decision(
            ContentId.ofBytes(new byte[] {1}),
            PROMPT.size(),
            new ServeBounds(64, Fidelity.F1, 1_000_000),
            shape);
    AtomicLong work = new AtomicLong();

    EngineResult r =
        ReferenceEngine.builder()
            .workPerToken(4)
            .observeWork(work::addAndGet)
            .build()
            .serve(request, PROMPT);

    assertThat(r.tokens().size()).isZero();
    assertThat(r.outcome().tokensOut()).isZero();
    assertThat(r.outcome().counters().tokensAccepted()).isZero();
    assertThat(r.outcome().tokensIn()).isEqualTo(PROMPT.size());
    assertThat(r.outcome().decision()).contains(shape);
    assertThat(work.get()).as("work per option scored").isEqualTo(9 * 4);
  }

  @Test
  void serve_reportsItsRatingAsDelivered_onlyWhenAskedTo() {
    ServeRequest request = generation("hello", 4);

    assertThat(
            ReferenceEngine.builder()
                .fidelity(Fidelity.F3)
                .build()
                .serve(request, PROMPT)
                .outcome()
                .deliveredFidelity())
        .isEmpty();
    assertThat(
            ReferenceEngine.builder()
                .fidelity(Fidelity.F3)
                .reportsDelivered(true)
                .build()
                .serve(request, PROMPT)
                .outcome()
                .deliveredFidelity())
        .isEqualTo(Optional.of(Fidelity.F3));
  }

  @Test
  void serve_fromManyThreads_agreesWithASingleThread() throws Exception {
    ReferenceEngine engine = ReferenceEngine.builder().build();
    ServeRequest request = generation("hello", 100);
    TokenSequence expected = engine.serve(request, PROMPT).tokens();

    var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      var futures = new java.util.ArrayList<java.util.concurrent.Future<TokenSequence>>();
      for (int i = 0; i < 32; i++) {
        futures.add(pool.submit(() -> engine.serve(request, PROMPT).tokens()));
      }
      for (var f : futures) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void serve_pastItsFirstBuffer_growsAndEmitsEveryToken_andAPrefixDoesNotDependOnTheLimit() {
    ReferenceEngine engine = ReferenceEngine.builder().workPerToken(1).build();
    EngineResult r = engine.serve(generation("hello", 10_000), PROMPT);
    assertThat(r.tokens().size()).isEqualTo(10_000);
    assertThat(r.outcome().tokensOut()).isEqualTo(10_000);
  }

  @Test
  void limits_declareTheOutputLimit_andARequestAboveItIsRefusedBeforeAnyWork() {
    assertThat(ReferenceEngine.builder().build().limits().maxOutputTokens())
        .isEqualTo(ReferenceEngine.DEFAULT_MAX_OUTPUT_TOKENS);
    AtomicLong work = new AtomicLong();
    ReferenceEngine engine =
        ReferenceEngine.builder().maxOutputTokens(100).observeWork(work::addAndGet).build();
    assertThat(engine.limits().maxOutputTokens()).isEqualTo(100);
    assertThat(engine.limits().maxPromptTokens()).isEqualTo(0xFFFF_FFFFL);
    // No int cast: 3e9 and the top of the u32 range are refused as what they are.
    for (long maxTokens : new long[] {101, Integer.MAX_VALUE, 3_000_000_000L, 0xFFFF_FFFFL}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> engine.serve(generation("hello", maxTokens), PROMPT))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("max_tokens " + maxTokens);
    }
    assertThat(work.get()).isZero();
    assertThat(engine.limits().refusal(generation("hello", 3_000_000_000L)))
        .contains("max_tokens 3000000000 > limit 100");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ReferenceEngine.builder().maxOutputTokens(0xFFFF_FFFFL))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
