package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
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
  // The energy_uj read (counted down to it) that throws an Error, or 0 for none.
  private final AtomicInteger throwAtRead = new AtomicInteger();

  /** A package zone without constraint files, whose counter runs at {@link #watts}. */
  private CounterMeter meter() throws IOException {
    Path zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    clock.onAdvance(nanos -> drawnUj.addAndGet(nanos * watts.get() / 1_000));
    SysfsReader reader =
        file ->
            switch (file.getFileName().toString()) {
              // The kernel's register times the unit: it reads the range itself, then 0 a unit on.
              case "energy_uj" -> {
                if (throwAtRead.get() > 0 && throwAtRead.decrementAndGet() == 0) {
                  throw new InternalError("driver fault in the middle of a probe");
                }
                yield Long.toString(Math.min(drawnUj.get() % (RANGE + UNIT), RANGE));
              }
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
    // Unwatched: the load rises between timed reads, as where the meter's thread is starved; the
    // watch's reads would see it at once (aLoadRisingWhileTheWatchReadsEvery2Ms).
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
    CounterMeter meter = clock.watch(meter());
    watts.set(900);
    tick(meter, clock, 2); // the first gap at 900 W shortens the interval
    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawnUj.get();
    tick(meter, clock, 10); // 91 s at 900 W, 82 kJ: one wrap, read between
    long drawn = drawnUj.get() - before;
    Energy e = w.close(1);

    assertCountedWhole(e, drawn);
    meter.close();
  }

  /**
   * A meter whose zone was seen at 900 W, so read for 3.6 kW (every 9.1 s); the first tick runs
   * past discovery's own tail, whose length other tests' meters in this JVM set.
   */
  private CounterMeter meterReadFor900Watts() throws IOException {
    CounterMeter meter = meter();
    tick(meter, clock, 1);
    watts.set(900);
    tick(meter, clock, 2);
    return meter;
  }

  @Test
  void aFallingDraw_lengthensTheIntervalAgain_withHysteresis_andARiseShortensItOnceMore()
      throws IOException {
    CounterMeter meter = meterReadFor900Watts();
    assertThat(meter.pollEveryNanos()).as("read for 3.6 kW").hasValue(9_101_751_500L);

    watts.set(600); // under half of 3.6 kW, over an eighth: neither way, however long
    tick(meter, clock, 20);
    assertThat(meter.pollEveryNanos()).as("600 W holds the interval").hasValue(9_101_751_500L);

    watts.set(400); // under an eighth: once quiet for the 18.2 s 3.6 kW takes through the range
    tick(meter, clock, 1);
    assertThat(meter.pollEveryNanos()).as("one quiet gap is not enough").hasValue(9_101_751_500L);
    tick(meter, clock, 1);
    assertThat(meter.pollEveryNanos())
        .as("four times the 400 W seen: half of 41.0 s")
        .hasValue(20_478_940_500L);
    tick(meter, clock, 20);
    assertThat(meter.pollEveryNanos())
        .as("400 W is under half of 1.6 kW and over an eighth: no flapping")
        .hasValue(20_478_940_500L);

    watts.set(100);
    tick(meter, clock, 2);
    assertThat(meter.pollEveryNanos())
        .as("never above the zone's own 1 kW interval")
        .hasValue(32_766_305_000L);

    watts.set(900);
    tick(meter, clock, 2);
    assertThat(meter.pollEveryNanos()).as("a rise shortens it again").hasValue(9_101_751_500L);
    meter.close();
  }

  @Test
  void aWindowAcrossTheLengthening_isAReading() throws IOException {
    CounterMeter meter = clock.watch(meterReadFor900Watts());
    watts.set(100);
    tick(meter, clock, 1);
    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawnUj.get();
    tick(meter, clock, 6); // lengthened at the second of these; every gap within its bound
    long drawn = drawnUj.get() - before;
    Energy e = w.close(1);

    assertThat(meter.pollEveryNanos()).hasValue(32_766_305_000L);
    assertCountedWhole(e, drawn);
    meter.close();
  }

  @Test
  void aGapTooLongForTheShortInterval_isNotExcusedByTheLengtheningItCauses() throws IOException {
    // Unwatched: it is about a window left unread for 25 s, which a running watch never leaves.
    CounterMeter meter = meterReadFor900Watts(); // read at least every 18.2 s
    watts.set(100);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(25_000); // one unread gap past 18.2 s that looks quiet, so lengthens
    meter.pollCounters();
    Energy e = w.close(1);

    assertThat(meter.pollEveryNanos()).hasValue(32_766_305_000L);
    assertThat(e.provenance())
        .as("a second wrap could hide in a gap longer than the interval it was read at")
        .isEqualTo(Provenance.Estimator);
    meter.close();
  }

  // The watch reads a zone every 2 ms while a window is open on it, each gap far under the 10 ms a
  // draw is judged over; the draw is judged over the span of those reads instead, so the interval
  // follows a load that changes while windows are open, both ways.
  @Test
  void aLoadRisingWhileTheWatchReadsEvery2Ms_shortensTheInterval() throws IOException {
    CounterMeter meter = clock.watch(meter());
    tick(meter, clock, 1);
    MeterWindow w = meter.open(Set.of(CPU0));
    assertThat(meter.watchEveryNanos()).hasValue(2_000_000L);
    watts.set(900);
    clock.advanceMillis(100);

    assertThat(meter.pollEveryNanos())
        .as("read for four times the 900 W seen: half of 18.2 s")
        .hasValue(9_101_751_500L);
    assertThat(w.close(1).provenance())
        .as("the reads before it were spaced for less")
        .isEqualTo(Provenance.Estimator);
    meter.close();
  }

  @Test
  void aLoadFallingWhileTheWatchReadsEvery2Ms_lengthensTheInterval() throws IOException {
    CounterMeter meter = clock.watch(meterReadFor900Watts());
    watts.set(100);
    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawnUj.get();
    clock.advanceMillis(20_000); // quiet for the 18.2 s 3.6 kW takes through the range
    long drawn = drawnUj.get() - before;
    Energy e = w.close(1);

    assertThat(meter.pollEveryNanos()).as("back to 1 kW").hasValue(32_766_305_000L);
    assertCountedWhole(e, drawn);
    meter.close();
  }

  @Test
  void aLumpOverAGapTooShortToJudge_isJudgedOverTheSpanFromTheLastJudgedRead() throws Exception {
    // A refresh landing 1 ms after a read looks like 700 W over that gap; over the 20 ms from the
    // read judged last, it is the 100 W drawn, far under half the 1 kW bound.
    AtomicLong counter = new AtomicLong();
    RaplChannel zone =
        new RaplChannel(
            "rapl:intel-rapl:0",
            CPU0,
            root.resolve("energy_uj"),
            RANGE,
            file -> Long.toString(counter.get()),
            clock);
    long readFor1Kw = zone.maxReadGapNanos();
    zone.readTotalUj();

    clock.advanceMillis(1);
    counter.set(700_000);
    zone.readTotalUj();
    clock.advanceMillis(19);
    counter.set(2_000_000);
    zone.readTotalUj();

    assertThat(zone.maxReadGapNanos()).isEqualTo(readFor1Kw);
  }

  // A probe whose read throws something the meter does not turn into a failed read (an Error out
  // of a driver's read) still ends the probe of every counter it began: the counter is not left
  // "re-probing" until its next periodic probe, and the zone goes back to judging its draw from its
  // reads, so its interval follows its load again.
  @Test
  void aProbeWhoseReadThrowsAnError_endsTheProbe_andTheIntervalFollowsTheLoadAgain()
      throws IOException {
    CounterMeter meter = meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    throwAtRead.set(5);
    // The Error fails this counter's probe alone (IntermittentErrorTest): thrown on, it would end
    // the probe of every counter taken with it.
    assertThatCode(meter::probeNow).doesNotThrowAnyException();

    CounterStatus status = meter.counters().getFirst();
    assertThat(status.issue()).contains(CounterIssue.READ_FAILED);
    assertThat(status.detail()).contains("probe failed").contains("driver fault");
    // The probe rests for the slowest update period of every meter open in the process (another
    // test's meter not yet collected too), at 100 W: a read here starts the span the interval is
    // judged over after that rest, whatever its length.
    meter.pollCounters();
    watts.set(900); // past half the 1 kW the zone is read for
    tick(meter, clock, 2);
    assertThat(meter.pollEveryNanos())
        .as("read for four times the 900 W seen: half of 18.2 s")
        .hasValue(9_101_751_500L);
    meter.close();
  }

  @Test
  void aZoneTakenToDrawNoPowerAtAll_isRefused() {
    assertThatThrownBy(
            () ->
                new RaplChannel(
                    "rapl:intel-rapl:0",
                    CPU0,
                    root.resolve("energy_uj"),
                    RANGE,
                    0,
                    SysfsReader.FILES,
                    clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWatts must be positive: 0");
  }

  /** A reading of every µJ drawn, short of at most two energy units at its edges. */
  private static void assertCountedWhole(Energy e, long drawn) {
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj().getAsLong()).isBetween(drawn - 2 * UNIT, drawn);
  }
}
