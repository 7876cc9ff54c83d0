package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A RAPL zone that publishes no power limit is read as drawing at most 1 kW: every 32.8 s on a 65.5
 * kJ range. Drawing more than twice that, it wraps twice between two timed reads, and the increment
 * reads as the energy less a whole range, small enough to pass as energy (SPEC.md 40 §3). The meter
 * cannot see a second wrap in the values; it can see the power rising towards it over the gaps
 * between reads, and read sooner. Fake time; the timer's reads are run at the interval the meter
 * asks for at each tick.
 */
class RaplRisingPowerTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final long RANGE = 65_532_610_987L; // about 65.5 kJ, as on some parts
  private static final long UNIT = RaplChannel.wrapStepUj(RANGE);

  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private final AtomicLong watts = new AtomicLong(100);
  private final AtomicLong drawnUj = new AtomicLong();

  /** A package zone without constraint files, whose counter runs at {@link #watts}. */
  private CounterMeter meter() throws IOException {
    Path zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    clock.onAdvance(nanos -> drawnUj.addAndGet(nanos * watts.get() / 1_000));
    SysfsReader reader =
        file ->
            switch (file.getFileName().toString()) {
              // The kernel's register times the unit: it reads the range itself, then 0 a unit on.
              case "energy_uj" -> Long.toString(Math.min(drawnUj.get() % (RANGE + UNIT), RANGE));
              case "max_energy_range_uj" -> Long.toString(RANGE);
              default -> SysfsReader.FILES.read(file);
            };
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    return (CounterMeter)
        MeterDiscovery.discover(options, clock, reprobes::add, reader, "Linux").meter();
  }

  /** Runs {@code ticks} of the meter's timer, each at the interval it asks for then. */
  private static void tick(CounterMeter meter, FakeClock clock, int ticks) {
    for (int i = 0; i < ticks; i++) {
      clock.burnUntil(clock.nanoTime() + meter.pollEveryNanos().orElseThrow());
      meter.pollCounters();
    }
  }

  @Test
  void aZoneRisingPastTwiceItsBound_isNeverGradedHwShuntShortOfAWrap() throws IOException {
    CounterMeter meter = meter();
    assertThat(meter.pollEveryNanos()).as("half of 65.5 s at 1 kW").hasValue(32_766_305_000L);
    tick(meter, clock, 1);
    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawnUj.get();
    watts.set(900); // a load past half the bound, then past twice it
    tick(meter, clock, 2);
    watts.set(2_200);
    tick(meter, clock, 4);
    long drawn = drawnUj.get() - before;
    Energy e = w.close(1);

    if (e.provenance() == Provenance.HwShunt) {
      assertThat(e.measuredUj().getAsLong())
          .as("a reading must hold every wrap: %d µJ were drawn", drawn)
          .isBetween(drawn - 10 * UNIT, drawn);
    }
    assertThat(meter.pollEveryNanos())
        .as("read for four times the 900 W seen: half of 18.2 s")
        .hasValue(9_101_751_500L);
    meter.close();
  }

  @Test
  void aWindowAfterTheIntervalShortened_isAReadingAgain() throws IOException {
    CounterMeter meter = meter();
    watts.set(900);
    tick(meter, clock, 2); // the first gap at 900 W shortens the interval
    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawnUj.get();
    tick(meter, clock, 10); // 91 s at 900 W, 82 kJ: one wrap, read between
    long drawn = drawnUj.get() - before;
    Energy e = w.close(1);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj().getAsLong()).isBetween(drawn - 2 * UNIT, drawn);
    meter.close();
  }
}
