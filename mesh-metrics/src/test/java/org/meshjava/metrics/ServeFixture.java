package org.meshjava.metrics;

import java.time.Instant;
import java.util.List;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.steward.Steward;
import org.meshjava.steward.observe.StewardListener;

/**
 * An ephemeral steward with two reference backends ("tiny" at 40 µJ/token, "big" at 900) and the
 * estimator meter, so every figure is known in advance; and a grant held by it.
 */
final class ServeFixture {
  static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Proposition("duplicate?"),
          new DecisionQuestion.Choice("which?", List.of("a", "b", "c")));
  static final TokenSequence PROMPT = TokenSequence.of(1, 2, 3, 4);

  final SigningKey org = SigningKey.generate();
  final SigningKey caller = SigningKey.generate();
  final Steward steward;

  ServeFixture(StewardListener... listeners) {
    Steward.Builder b =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(
                ReferenceEngine.builder()
                    .name("tiny")
                    .costProfile(CostProfile.perToken(40).withOptionCost(10))
                    .build())
            .backend(
                ReferenceEngine.builder()
                    .name("big")
                    .fidelity(Fidelity.F4)
                    .costProfile(CostProfile.perToken(900).withOptionCost(200))
                    .build());
    for (StewardListener l : listeners) {
      b.listener(l);
    }
    steward = b.build();
  }

  /** A generation of {@code maxTokens} routed to {@code backend}. */
  static ServeRequest generation(String backend, long maxTokens) {
    return ServeRequest.generation(
            ContentId.ofBytes(new byte[] {7}),
            PROMPT.size(),
            new ServeBounds(maxTokens, Fidelity.F1, 1_000_000))
        .withModel(backend);
  }

  static ServeRequest decision(String backend) {
    return ServeRequest.decision(
            ContentId.ofBytes(new byte[] {9}),
            PROMPT.size(),
            new ServeBounds(0, Fidelity.F1, 1_000_000),
            DecisionQuestion.shapeOf(QUESTIONS, 2))
        .withModel(backend);
  }

  /** A grant of {@code budgetUj} from org to caller, delegated to the steward. */
  GrantChain grant(long budgetUj) throws Exception {
    Instant now = Instant.now();
    GrantChain root =
        Jcp.issueRoot(
            org, Jcp.identity(caller), budgetUj, now.minusSeconds(60), now.plusSeconds(3600));
    return Jcp.delegate(caller, root, steward.identity(), budgetUj);
  }

  Presentation present(GrantChain chain, ServeRequest request) throws Exception {
    return Jcp.present(caller, chain, request);
  }
}
