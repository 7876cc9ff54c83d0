package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.FakeNvml.DiscoveryCall;

/**
 * A GPU board's power bound in its status, and a board whose power-limit range could not be read at
 * discovery asked again at its re-probes, on the fake NVML library (SPEC.md 40 §3, §6).
 */
class NvmlBoundStatusTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final int NOT_READY = 27;
  private static final int NO_PERMISSION = 4;

  /** NVML's cadence without polls between samples, as NvmlMeterTest's bound cases use. */
  private static final LivenessPolicy UNPOLLED =
      new LivenessPolicy(Duration.ofMillis(150), Duration.ofMillis(1_500), Duration.ofMillis(150));

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private Path library;
  private CounterMeter meter;

  @BeforeEach
  void stageFakeLibrary() {
    library = FakeNvml.library();
    FakeNvml.reset();
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.setPowerLimitMax(0, 2_300_000); // settable to 2.3 kW: held to 4.6 kW once read
  }

  @AfterEach
  void closeMeter() {
    if (meter != null) {
      meter.close();
    }
  }

  private CounterMeter discover() {
    DiscoveryOptions options =
        DiscoveryOptions.defaults()
            .withoutRapl()
            .withoutIoReport()
            .withNvmlLibrary(library.toString())
            .withNvmlLiveness(UNPOLLED)
            .withGpuVisibility(GpuVisibility.all());
    meter =
        (CounterMeter)
            clock
                .watch(
                    MeterDiscovery.discover(
                        options, clock, reprobes::add, SysfsReader.FILES, "Linux"))
                .meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    return meter;
  }

  private String detail() {
    return meter.counters().getFirst().detail();
  }

  /** A 10 s window in which the board draws 2.3 kW (23 kJ), a period after the last read. */
  private Energy windowDrawing2300Watts() {
    clock.advanceMillis(150);
    MeterWindow w = meter.open(Set.of(GPU0));
    FakeNvml.draw(0, 2_300_000, 20_000_000L, clock);
    clock.advanceMillis(10_000);
    Energy e = w.close(1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock);
    return e;
  }

  @Test
  void statusSaysTheBoundAndWhereItCameFrom() {
    discover();
    assertThat(detail()).contains("held to 4600 W").contains("settable power limit of 2300 W");
  }

  // The board was held to the 2 kW floor for the life of the process, its status silent about it:
  // an operator saw only its 2.3 kW serves graded Estimator after COUNTER_RESET demotions.
  @Test
  void limitQueryStillFailingAfterDiscovery_isInTheStatus_andAskedAgainAtTheReprobe() {
    FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, NOT_READY, -1);
    discover();
    assertThat(detail())
        .contains("held to 2000 W")
        .contains("could not be read")
        .contains("asked again at each re-probe")
        .doesNotContain("not metered");

    FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, 0, 0); // the board answers now
    meter.probeNow(); // the periodic re-probe, on the meter's background thread in service
    assertThat(detail()).contains("held to 4600 W");
    assertThat(windowDrawing2300Watts()).isEqualTo(Energy.measured(23_000_000_000L, 1));
  }

  @Test
  void limitQueryRefusedForGood_isInTheStatus_andNotAskedAgain() {
    FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, NO_PERMISSION, 1);
    discover();
    assertThat(detail()).contains("held to 2000 W").doesNotContain("asked again");
    meter.probeNow();
    assertThat(detail()).contains("held to 2000 W");
    assertThat(windowDrawing2300Watts()).isEqualTo(Energy.estimated(1));
    assertThat(meter.counters().getFirst().issue())
        .isEqualTo(Optional.of(CounterIssue.COUNTER_RESET));
  }
}
