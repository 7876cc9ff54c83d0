package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RAPL zone whose counter lies by just under its power bound at every read (100 J every 2 ms on a
 * 1 kW zone: each step within the 1 kW over the gap and the 100 ms slack, the run of them refused
 * by the meter over the totals it keeps) does not move the interval the zone is read at: the meter
 * judges each total before the zone learns its draw from it, and a refused total is forgotten
 * (SPEC.md 40 §3). Before, the zone judged the draw over the span across the refused totals (50 kW
 * over 100 ms) and read itself for 200 kW. Fake time.
 */
class RaplRefusedDrawTest {
  private static final long RANGE = 65_532_610_987L; // about 65.5 kJ, as on some parts

  @TempDir Path root;

  @Test
  void totalsRefusedAsPastTheBound_doNotRaiseTheReadBound() {
    FakeClock clock = new FakeClock();
    AtomicLong energyUj = new AtomicLong(1_000_000);
    RaplChannel zone =
        new RaplChannel(
            "rapl:intel-rapl:0",
            ProbedMeter.CPU0,
            root.resolve("energy_uj"),
            RANGE,
            file -> Long.toString(energyUj.get()),
            clock);
    long readFor1Kw = zone.maxReadGapNanos();
    try (CounterMeter meter = ProbedMeter.unprobed(clock, r -> {}, zone)) {
      meter.pollCounters();
      for (int i = 0; i < 60; i++) {
        clock.advanceMillis(2);
        energyUj.addAndGet(100_000_000);
        meter.pollCounters();
      }
      assertThat(zone.maxReadGapNanos())
          .as("still read for the zone's own 1 kW: 65.5 s through the range")
          .isEqualTo(readFor1Kw);
    }
  }
}
