package org.meshjava.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;

/**
 * The reference engine's typed decisions (§3.6), its streaming serve, its output limit at the edge,
 * and what it is configured to report (§3.2.1 delivered fidelity, §3.6 weights).
 */
class ReferenceEngineDecideTest {
  private static final TokenSequence PROMPT = TokenSequence.of(5, 6, 7);
  private static final ContentId HASH = ContentId.ofBytes(new byte[] {1});

  private static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Proposition("Is it?"),
          new DecisionQuestion.Choice("Which?", List.of("a", "b", "c")));

  private static ServeRequest decision(long questions, long options) {
    return ServeRequest.decision(
        HASH, 3, new ServeBounds(0, Fidelity.F0, 1_000), new DecisionShape(questions, options, 0));
  }

  private static ServeRequest generation(long maxTokens) {
    return ServeRequest.generation(HASH, 3, new ServeBounds(maxTokens, Fidelity.F0, 1_000));
  }

  @Test
  void decide_answersEachQuestion_overItsOptions_deterministically() throws Exception {
    ReferenceEngine engine = ReferenceEngine.builder().build();

    DecisionResult r = engine.decide(decision(2, 5), PROMPT, QUESTIONS);

    assertThat(r.answers()).extracting(DecisionAnswer::size).containsExactly(2, 3);
    for (DecisionAnswer a : r.answers()) {
      double sum = 0;
      for (double p : a.probabilities()) {
        assertThat(p).isGreaterThan(0).isLessThan(1);
        sum += p;
      }
      assertThat(sum).isCloseTo(1, org.assertj.core.data.Offset.offset(1e-9));
    }
    assertThat(r.outcome().decision()).contains(new DecisionShape(2, 5, 0));
    assertThat(r.outcome().tokensOut()).isZero();
    assertThat(r.outcome().tokensIn()).isEqualTo(3);
    DecisionResult again =
        ReferenceEngine.builder().build().decide(decision(2, 5), PROMPT, QUESTIONS);
    assertThat(again.answers().get(1).probabilities())
        .isEqualTo(r.answers().get(1).probabilities());
    assertThat(r.answers().get(1).probabilities())
        .isNotEqualTo(
            engine
                .decide(decision(2, 5), TokenSequence.of(9), QUESTIONS)
                .answers()
                .get(1)
                .probabilities());
  }

  /** The steward's own check before routing (DecisionShape.misfit), so both refuse alike. */
  @Test
  void decide_refusesAGeneration_andQuestionsThatDoNotFitTheShape() {
    ReferenceEngine engine = ReferenceEngine.builder().build();

    assertThatThrownBy(() -> engine.decide(generation(4), PROMPT, QUESTIONS))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("not a decision request");
    assertThatThrownBy(() -> engine.decide(decision(2, 6), PROMPT, QUESTIONS))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("do not fit");
  }

  @Test
  void aStreamedServe_handsOverEachToken_andStopsWhenTheSinkAsks() {
    ReferenceEngine engine = ReferenceEngine.builder().build();
    EngineResult whole = engine.serve(generation(10), PROMPT);
    List<Long> seen = new ArrayList<>();

    EngineResult cut =
        engine.serve(
            generation(10),
            PROMPT,
            t -> {
              seen.add(Integer.toUnsignedLong(t));
              return seen.size() < 3;
            });

    assertThat(engine.streams()).isTrue();
    assertThat(cut.tokens().size()).isEqualTo(3);
    assertThat(cut.outcome().tokensOut()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(seen.get(i)).isEqualTo(whole.tokens().get(i)).isEqualTo(cut.tokens().get(i));
    }
    EngineResult streamedDecision =
        engine.serve(decision(2, 5), PROMPT, t -> org.assertj.core.api.Assertions.fail("a token"));
    assertThat(streamedDecision.outcome().decision()).contains(new DecisionShape(2, 5, 0));
  }

  @Test
  void aRequestAtTheOutputLimit_isServedWhole() {
    ReferenceEngine engine = ReferenceEngine.builder().maxOutputTokens(5).build();

    assertThat(engine.serve(generation(5), PROMPT).tokens().size()).isEqualTo(5);
  }

  @Test
  void whatItIsConfiguredToReport_itReports() {
    WeightsBinding weights = new WeightsBinding(ContentId.ofBytes(new byte[] {2}), "fp32");
    ReferenceEngine engine =
        ReferenceEngine.builder()
            .fidelity(Fidelity.F2)
            .delivers(Fidelity.F1)
            .weights(weights)
            .tokenizer(ByteTokenizer.INSTANCE)
            .build();

    assertThat(engine.weights()).contains(weights);
    assertThat(engine.tokenizer()).isSameAs(ByteTokenizer.INSTANCE);
    assertThat(engine.serve(generation(1), PROMPT).outcome().deliveredFidelity())
        .isEqualTo(Optional.of(Fidelity.F1));
    assertThat(ReferenceEngine.builder().build().weights()).isEmpty();
  }
}
