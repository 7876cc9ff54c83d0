package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;

/** An engine that answers only with its questions is never routed a request without them. */
class PayloadAloneRoutingTest {

  /** A cheap decision-only engine: it delegates decide() and refuses serve(). */
  static final class QuestionsOnly implements DecisionEngine {
    final ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("questions-only")
            .costProfile(CostProfile.perToken(1))
            .build();

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Recipe recipe() {
      return inner.recipe();
    }

    @Override
    public Fidelity fidelity() {
      return inner.fidelity();
    }

    @Override
    public CostProfile costProfile() {
      return inner.costProfile();
    }

    @Override
    public boolean servesPayloadAlone() {
      return false;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      throw new EngineException("needs its questions");
    }

    @Override
    public DecisionResult decide(ServeRequest r, TokenSequence p, List<DecisionQuestion> q)
        throws EngineException {
      return inner.decide(r, p, q);
    }
  }

  @Test
  void generationAndQuestionlessDecision_skipIt_decisionWithQuestions_takesIt() throws Exception {
    Steward s = DecisionServeTest.steward(new QuestionsOnly(), DecisionServeTest.engine());
    ServeRequest generation =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {9}), 10, new ServeBounds(4, Fidelity.F1, 100_000));
    ServeResult g = s.serve(generation, DecisionServeTest.PROMPT);
    assertThat(g.receipt().backend()).isEqualTo("reference");
    assertThat(g.route().candidates().get(0).admissible()).isFalse();

    assertThat(
            s.serve(DecisionServeTest.request(0, 100_000), DecisionServeTest.PROMPT)
                .receipt()
                .backend())
        .isEqualTo("reference");
    assertThat(
            s.serve(
                    DecisionServeTest.request(0, 100_000),
                    DecisionServeTest.PROMPT,
                    DecisionServeTest.QUESTIONS)
                .receipt()
                .backend())
        .isEqualTo("questions-only");
  }

  @Test
  void withOnlyAQuestionsOnlyEngine_aGenerationFindsNoBackend() {
    Steward s = DecisionServeTest.steward(new QuestionsOnly());
    ServeRequest generation =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {9}), 10, new ServeBounds(4, Fidelity.F1, 100_000));
    assertThatThrownBy(() -> s.serve(generation, DecisionServeTest.PROMPT))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND));
  }
}
