package org.meshjava.steward;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.Energy;
import org.meshjava.core.EngineResult;
import org.meshjava.core.WeightsBinding;

/**
 * What the meter phase produced for a serve whose engine ran (§2 phase 3): what the engine
 * returned, the metered figure, and the weights the engine named after the work (the ones the grant
 * was decided over, or the phase refused).
 */
record Metered(Ask.Worked worked, Energy energy, Optional<WeightsBinding> weights) {
  Metered {
    Objects.requireNonNull(worked, "worked");
    Objects.requireNonNull(energy, "energy");
    Objects.requireNonNull(weights, "weights");
  }

  EngineResult result() {
    return worked.result();
  }

  List<DecisionAnswer> answers() {
    return worked.answers();
  }
}
