package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.NonceSource;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.internal.SignedCores;

/** §3.6 end to end: questions in, answers out, and the receipt a decision seals. */
class DecisionServeTest {
  static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Proposition("is this invoice a duplicate?"),
          new DecisionQuestion.Choice("which department?", List.of("ops", "sales", "legal")),
          new DecisionQuestion.Score("how urgent?", List.of("low", "high")));
  static final TokenSequence PROMPT = TokenSequence.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);

  static ReferenceEngine engine() {
    return ReferenceEngine.builder()
        .costProfile(CostProfile.perToken(100).withOptionCost(40))
        .build();
  }

  static ServeRequest request(long maxTokens, long ceiling) {
    return ServeRequest.decision(
        ContentId.ofBytes(new byte[] {9}),
        PROMPT.size(),
        new ServeBounds(maxTokens, Fidelity.F1, ceiling),
        DecisionQuestion.shapeOf(QUESTIONS, 8));
  }

  static Steward steward(ServingEngine... engines) {
    Steward.Builder b =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .nonces(NonceSource.fixed(new byte[16]))
            .clock(InstantSource.fixed(Instant.EPOCH));
    for (ServingEngine e : engines) {
      b.backend(e);
    }
    return b.build();
  }

  @Test
  void serve_withQuestions_returnsOneDistributionPerQuestion() throws Exception {
    ServeResult r = steward(engine()).serve(request(0, 10_000), PROMPT, QUESTIONS);
    assertThat(r.answers()).hasSize(3);
    for (int i = 0; i < QUESTIONS.size(); i++) {
      assertThat(r.answers().get(i).fits(QUESTIONS.get(i))).as("question %d", i).isTrue();
    }
    assertThat(r.tokens().size()).isZero();
    assertThat(r.receipt().outputCommitment()).isEmpty();
  }

  @Test
  void serve_withQuestions_sealsTheSameReceiptAsWithout() throws Exception {
    ServeResult with = steward(engine()).serve(request(0, 10_000), PROMPT, QUESTIONS);
    ServeResult without = steward(engine()).serve(request(0, 10_000), PROMPT);
    assertThat(with.envelope()).isEqualTo(without.envelope());
    assertThat(without.answers()).isEmpty();
  }

  @Test
  void answers_areDeterministic() throws Exception {
    assertThat(steward(engine()).serve(request(0, 10_000), PROMPT, QUESTIONS).answers())
        .isEqualTo(steward(engine()).serve(request(0, 10_000), PROMPT, QUESTIONS).answers());
  }

  /** Upstream defect: every decision receipt sealed with no efficiency figure at all. */
  @Test
  void decisionReceipt_hasAnEfficiencyFigure() throws Exception {
    MeshReceipt r = steward(engine()).serve(request(0, 10_000), PROMPT, QUESTIONS).receipt();
    assertThat(r.ujPerDecision()).hasValue(r.energy().uj() / 3);
    assertThat(r.ujPerOptionScored()).hasValue(r.energy().uj() / 7);
    assertThat(r.ujPerAcceptedToken()).isEmpty();
    assertThat(SignedCores.encode(r).get("uj_per_decision")).isPresent();
    assertThat(SignedCores.encode(r).get("uj_per_accepted_token")).isEmpty();
  }

  /**
   * Upstream defect: a decision sent with a generation's default max_tokens was priced for output
   * it never emits and refused at a ceiling that covers it.
   */
  @Test
  void decision_isNotPricedForTokensItNeverEmits() throws Exception {
    long cost = 100 * PROMPT.size() + 40 * 7;
    // max_tokens 4096 would add 409 600 µJ under the generation formula.
    ServeResult r = steward(engine()).serve(request(4096, cost), PROMPT, QUESTIONS);
    assertThat(r.route().chosenCandidate().estimateUj()).isEqualTo(cost);
    assertThat(r.receipt().ujPerDecision()).isPresent();
  }

  @Test
  void serve_refusesQuestionsThatDoNotFitTheShape_sealingNothing() throws Exception {
    Steward s = steward(engine());
    for (List<DecisionQuestion> bad :
        List.of(
            QUESTIONS.subList(0, 2),
            List.of(QUESTIONS.get(0), QUESTIONS.get(0), QUESTIONS.get(2)),
            List.<DecisionQuestion>of())) {
      assertThatThrownBy(() -> s.serve(request(0, 10_000), PROMPT, bad))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.QUESTIONS_MISMATCH));
    }
    ServeRequest generation =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {9}), 10, new ServeBounds(4, Fidelity.F1, 10_000));
    assertThatThrownBy(() -> s.serve(generation, PROMPT, QUESTIONS))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.QUESTIONS_MISMATCH));
    assertThat(s.head()).isEqualTo(ChainHead.GENESIS);
  }

  @Test
  void serve_withQuestions_routesOnlyToDecisionEngines() throws Exception {
    ReferenceEngine cheap =
        ReferenceEngine.builder().name("cheap").costProfile(CostProfile.perToken(1)).build();
    Steward s = steward(ClaimsEngine.tokensOnly(cheap), engine());
    ServeResult r = s.serve(request(0, 10_000), PROMPT, QUESTIONS);
    assertThat(r.receipt().backend()).isEqualTo("reference");
    assertThat(r.route().candidates().get(0).admissible()).isFalse();

    Steward none = steward(ClaimsEngine.tokensOnly(cheap));
    assertThatThrownBy(() -> none.serve(request(0, 10_000), PROMPT, QUESTIONS))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND));
  }

  @Test
  void serve_refusesAnEngineWhoseAnswersDoNotFit_sealingNothing() throws Exception {
    List<java.util.function.UnaryOperator<DecisionResult>> bad =
        List.of(
            d -> new DecisionResult(d.outcome(), d.answers().subList(0, 2)),
            d ->
                new DecisionResult(
                    d.outcome(),
                    List.of(d.answers().get(0), d.answers().get(0), d.answers().get(0))),
            d ->
                new DecisionResult(
                    new org.meshjava.core.ServeOutcome(
                        10,
                        0,
                        0,
                        0,
                        0,
                        0,
                        java.util.Optional.empty(),
                        java.util.Optional.of(new org.meshjava.core.DecisionShape(1, 2, 8))),
                    d.answers()));
    for (var b : bad) {
      Steward s = steward(ClaimsEngine.over(engine()).decisions(b));
      assertThatThrownBy(() -> s.serve(request(0, 10_000), PROMPT, QUESTIONS))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.INCONSISTENT_OUTCOME));
      assertThat(s.head()).isEqualTo(ChainHead.GENESIS);
    }
  }

  @Test
  void referenceEngine_answersAreProbabilityDistributions() throws Exception {
    for (DecisionAnswer a : engine().decide(request(0, 10_000), PROMPT, QUESTIONS).answers()) {
      double sum = 0;
      for (double p : a.probabilities()) {
        assertThat(p).isBetween(0.0, 1.0);
        sum += p;
      }
      assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }
  }
}
