package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * The power bound holds over longer spans than one gap between reads: each gap is allowed the
 * bound's 100 ms of slack, so a counter read often (the watch reads a RAPL zone every 2 ms, an
 * Apple rail every 40 ms, a board every 200 ms) could rise past the bound for as long as it liked,
 * a slack per read (SPEC.md 40 §2). A total rising past the bound over two seconds is refused as a
 * reset however close its reads, and a draw at the bound, or a burst past it shorter than the
 * slack, is still a reading. Fake time, the watch run by the fake clock (the stall rule holds every
 * close).
 */
class SustainedOverDrawTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private CounterMeter meter;

  /** An Apple GPU rail (held to 1 kW) drawing {@code gpuWatts}, one delta per read. */
  private CounterMeter appleGpuRail(AtomicLong gpuWatts) {
    CounterMeter m =
        clock.watch(
            IoReportTest.meterOver(
                IoReportTest.cpuAndGpuRails(clock, gpuWatts::get), clock, reprobes::add));
    m.probeNow();
    assertThat(m.liveDomains()).contains(GPU0);
    return m;
  }

  private static void assertReset(CounterMeter meter, EnergyDomain domain) {
    assertThat(meter.counters())
        .filteredOn(s -> s.domain().equals(Optional.of(domain)))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.COUNTER_RESET));
  }

  @Test
  void appleGpuRailAt1700WattsReadEvery40Ms_isAResetNotAReading() {
    AtomicLong gpuWatts = new AtomicLong(20);
    meter = appleGpuRail(gpuWatts);
    assertThat(meter.watchEveryNanos()).isEmpty();
    MeterWindow w = meter.open(Set.of(GPU0));
    assertThat(meter.watchEveryNanos()).as("read every 40 ms").hasValue(40_000_000L);
    gpuWatts.set(1_700); // 68 J a read, within the 140 J one 40 ms gap allows
    clock.advanceMillis(1_000);

    assertThat(w.close(3)).isEqualTo(Energy.estimated(3));
    assertReset(meter, GPU0);
  }

  @Test
  void appleGpuRailAtItsBound_andABurstPastItShorterThanTheSlack_areReadings() {
    AtomicLong gpuWatts = new AtomicLong(1_000);
    meter = appleGpuRail(gpuWatts);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(2_000);
    gpuWatts.set(300);
    clock.advanceMillis(1_000);
    gpuWatts.set(1_900); // 152 J in 80 ms
    clock.advanceMillis(80);
    gpuWatts.set(300);
    clock.advanceMillis(1_000);
    Energy e = w.close(3);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    // 2 kJ, 300 J, 152 J and 300 J, give or take the 40 ms between the open and the first read.
    assertThat(e.measuredUj().getAsLong()).isBetween(2_700_000_000L, 2_800_000_000L);
  }

  @Test
  void raplZoneAt1500WattsReadEvery2Ms_isAResetNotAReading() {
    TimedCounter zone = TimedCounter.rapl(CPU0, clock); // 3 J a 2 ms read, of 102 J allowed
    assertThat(drawFor(zone, 1_500, 1_000).energy().provenance()).isEqualTo(Provenance.Estimator);
    assertReset(zone);
  }

  @Test
  void raplZoneAtItsBoundForTenSeconds_isAReading() {
    TimedCounter zone = TimedCounter.rapl(CPU0, clock);
    Served s = drawFor(zone, 1_000, 10_000);

    assertThat(s.energy().provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(s.energy().measuredUj().getAsLong()).isBetween(s.drawnUj() - 2_000_000, s.drawnUj());
  }

  @Test
  void boardAt2500WattsReadEvery200Ms_isAResetNotAReading() {
    // 2.4 kW and 100 W idle: 500 J a 200 ms read, of the 600 J allowed.
    TimedCounter board = new TimedCounter(GPU0, clock, 100, 100_000, true);
    assertThat(drawFor(board, 2_400, 2_000).energy().provenance()).isEqualTo(Provenance.Estimator);
    assertReset(board);
  }

  @Test
  void boardAt1900WattsForTenSeconds_isAReading() {
    TimedCounter board = new TimedCounter(GPU0, clock, 100, 100_000, true);
    Served s = drawFor(board, 1_800, 10_000);

    assertThat(s.energy().provenance()).isEqualTo(Provenance.HwShunt);
    // The counter lags by up to a refresh (190 J at 1.9 kW), and the added draw by one more.
    assertThat(s.energy().measuredUj().getAsLong())
        .isBetween(s.drawnUj() - 400_000_000, s.drawnUj() + 200_000_000);
  }

  private record Served(Energy energy, long drawnUj) {}

  /**
   * Probes a watched meter over {@code counter}, then serves {@code millis} alone on it with {@code
   * watts} added to its idle draw; returns the figure and what was drawn meanwhile.
   */
  private Served drawFor(TimedCounter counter, long watts, long millis) {
    AtomicLong added = new AtomicLong();
    clock.onAdvance(nanos -> counter.work(added.get() * nanos / 1_000));
    meter = clock.watch(ProbedMeter.unprobed(clock, reprobes::add, counter));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(counter.domain());
    MeterWindow w = meter.open(Set.of(counter.domain()));
    long before = counter.drawnUj();
    added.set(watts);
    clock.advanceMillis(millis);
    long drawn = counter.drawnUj() - before;
    return new Served(w.close(1), drawn);
  }

  private void assertReset(TimedCounter counter) {
    assertReset(meter, counter.domain());
  }

  @AfterEach
  void close() {
    if (meter != null) {
      meter.close();
    }
  }
}
