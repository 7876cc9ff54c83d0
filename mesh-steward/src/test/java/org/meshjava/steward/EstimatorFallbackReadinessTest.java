package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Fidelity;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.CounterIssue;
import org.meshjava.energy.CounterStatus;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.receipt.ChainHead;

/**
 * A steward whose discovery found counters but could use none falls back to the estimator; its
 * readiness (what the operator console and {@code mesh serve} show) still lists each counter found
 * and why it is not used, as it does beside a live one.
 */
class EstimatorFallbackReadinessTest {
  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);

  // The readiness of such a steward listed no counter at all: the reason (a zone unreadable, an
  // NVML board lost to discovery's retries) was in the start's log line only.
  @Test
  void countersFoundButNotUsed_areInTheReadinessOfAnEstimatorSteward(@TempDir Path root)
      throws IOException {
    try (FakePowercap tree = new FakePowercap(root)) {
      Files.writeString(root.resolve("intel-rapl:0").resolve("energy_uj"), "n/a\n");
      try (Steward s =
          Steward.builder(KEY)
              .chainHead(ChainHead.GENESIS)
              .discovery(tree.options())
              .backend(
                  new ScriptedEngine(
                      "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
              .build()) {
        assertThat(s.meter()).isInstanceOf(EstimatorMeter.class);
        Readiness.Meter meter = s.readiness().meter();
        assertThat(meter.estimatorOnly()).isTrue();
        assertThat(meter.counters())
            .extracting(CounterStatus::counter, CounterStatus::issue)
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple(
                    "rapl:intel-rapl:0", Optional.of(CounterIssue.READ_FAILED)));
      }
    }
  }
}
