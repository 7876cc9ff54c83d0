package org.meshjava.conformance;

import org.meshjava.core.NonceSource;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.receipt.ChainHead;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/** Runs the reference serve that {@link ReferenceInputs} describe on this implementation. */
public final class ReferenceServe {
  private ReferenceServe() {}

  /**
   * Builds the steward the inputs describe: the serving reference engine and any others the router
   * weighs, the estimator, fixed nonce and clock.
   */
  public static Steward steward(ReferenceInputs in) {
    ReferenceEngine.Builder b =
        ReferenceEngine.builder()
            .name(in.backendName())
            .recipe(in.recipe())
            .fidelity(in.fidelity())
            .costProfile(in.costProfile())
            .workPerToken(in.workPerToken());
    in.deliveredFidelity().ifPresent(b::delivers);
    in.weights().ifPresent(w -> b.weights(w.binding()));
    // The vector's steward seals its first receipt, at genesis: the seed is a fixed test key.
    Steward.Builder steward =
        Steward.builder(SigningKey.fromSeed(in.stewardSeed()))
            .chainHead(ChainHead.GENESIS)
            .backend(b.build());
    // Registered after the serving engine, in order: registration order breaks routing ties (§4).
    for (ReferenceInputs.OtherBackend other : in.otherBackends()) {
      steward.backend(
          ReferenceEngine.builder()
              .name(other.name())
              .fidelity(other.fidelity())
              .costProfile(other.costProfile())
              .build());
    }
    return steward
        .meter(new EstimatorMeter())
        .nonces(NonceSource.fixed(in.nonce()))
        .clock(java.time.InstantSource.fixed(in.clock()))
        .build();
  }

  /** Serves the reference request and returns the result. */
  public static ServeResult run(ReferenceInputs in) throws ServeException {
    return steward(in).serve(in.request(), in.prompt());
  }
}
