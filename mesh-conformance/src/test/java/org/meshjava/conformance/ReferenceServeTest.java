package org.meshjava.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.steward.Steward;

/**
 * The reference serve the vectors publish (§7) depends on its inputs alone: never on this machine's
 * energy counters, and on every setting the inputs carry. The published vectors all use the
 * engine's default work, so a work setting left unpassed would regenerate them unchanged.
 */
class ReferenceServeTest {
  @Test
  void theSteward_metersWithTheEstimator_andProbesNoCounters() {
    try (Steward s = ReferenceServe.steward(ReferenceInputs.v1Generation())) {
      assertThat(s.meter()).isInstanceOf(EstimatorMeter.class);
      assertThat(s.meterDiscovery())
          .as("a probed meter would tie the figures to the machine")
          .isEmpty();
    }
  }

  @Test
  void theEngine_runsAtTheInputsWork_notItsDefault() throws Exception {
    ReferenceInputs published = ReferenceInputs.v1Generation();
    ReferenceInputs heavier =
        new ReferenceInputs(
            published.stewardSeed(),
            published.backendName(),
            published.recipe(),
            published.fidelity(),
            published.costProfile(),
            published.workPerToken() + 1,
            published.promptText(),
            published.prompt(),
            published.request(),
            published.nonce(),
            published.clock(),
            published.deliveredFidelity(),
            published.weights(),
            published.otherBackends());
    // Each token is drawn from the engine's state after that many rounds of work, so the same
    // request at another work setting draws other tokens.
    assertThat(ReferenceServe.run(heavier).tokens())
        .isNotEqualTo(ReferenceServe.run(published).tokens());
  }
}
