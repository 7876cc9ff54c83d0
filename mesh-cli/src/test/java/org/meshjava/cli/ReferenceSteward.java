package org.meshjava.cli;

import java.nio.charset.StandardCharsets;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.Journal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;

/**
 * The steward the journal commands' tests serve through to get real records: one reference backend
 * ({@code ref}, 10 µJ a token), an estimator meter, a receipt chain from genesis.
 */
final class ReferenceSteward {
  private ReferenceSteward() {}

  /** A builder for such a steward under {@code key}, journalling to {@code journal}. */
  static Steward.Builder builder(SigningKey key, Journal journal) {
    return Steward.builder(key)
        .journal(journal)
        .chainHead(ChainHead.GENESIS)
        .meter(new EstimatorMeter())
        .backend(engine());
  }

  /**
   * Such a steward with an ephemeral identity and no journal, for a test that serves through it.
   */
  static Steward ephemeral() {
    return Steward.ephemeral().meter(new EstimatorMeter()).backend(engine()).build();
  }

  /**
   * The one backend: a reference engine named {@code ref}, 10 µJ a token, one unit of work each.
   */
  static ServingEngine engine() {
    return ReferenceEngine.builder()
        .name("ref")
        .costProfile(CostProfile.perToken(10))
        .workPerToken(1)
        .build();
  }

  /** An ungranted generation request for {@code prompt}: 3 tokens at F1 under 0.1 J. */
  static ServeRequest request(String prompt) {
    byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(
        ContentId.ofBytes(bytes), bytes.length, new ServeBounds(3, Fidelity.F1, 100_000));
  }

  /**
   * A prompt payload of {@code request}'s declared length (zeros: the reference engine's input).
   */
  static TokenSequence payload(ServeRequest request) {
    return TokenSequence.of(new int[Math.toIntExact(request.promptTokens())]);
  }
}
