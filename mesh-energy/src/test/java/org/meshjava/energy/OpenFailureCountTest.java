package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * Something thrown inside a serve's open after its window was counted in (an OutOfMemoryError while
 * the ledger makes its share, or while the meter starts a probe) leaves nothing behind: the window
 * is counted out of {@link OpenWindows}, so later serves on the counter are still readings, and a
 * probe that could not be started is claimed again. Fake time, no sleeps.
 */
class OpenFailureCountTest {
  private static final EnergyDomain CPU0 = ProbedMeter.CPU0;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter counter = TimedCounter.rapl(CPU0, clock);

  /** The counter, whose domain() throws while {@code failing} is set (met only by a log line). */
  private static EnergyChannel failingToName(TimedCounter counter, AtomicBoolean failing) {
    return new ForwardingChannel(counter) {
      @Override
      public EnergyDomain domain() {
        if (failing.get()) {
          throw new OutOfMemoryError("Java heap space");
        }
        return super.domain();
      }
    };
  }

  @Test
  void anErrorInTheLedgersEnter_afterCountingIn_countsTheWindowOut() {
    AtomicBoolean failing = new AtomicBoolean();
    Executor probes = Runnable::run;
    try (CounterMeter meter =
        ProbedMeter.overPackageZero(failingToName(counter, failing), clock, probes)) {
      // The open's read fails, and the demotion's WARN meets the Error, after the count-in.
      counter.failWith(CounterIssue.READ_FAILED);
      failing.set(true);
      clock.advanceMillis(5);
      assertThatThrownBy(() -> meter.open(Set.of(CPU0))).isInstanceOf(OutOfMemoryError.class);
      failing.set(false);
      counter.failWith(null);
      assertThat(OpenWindows.on(counter.hardware()))
          .as("windows counted open on the counter after the failed open")
          .isZero();
      meter.probeNow();
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void aProbeThatCouldNotBeStartedAtAnOpen_failsNoServe_andIsStartedAtTheNext() {
    CopyOnWriteArrayList<Runnable> handed = new CopyOnWriteArrayList<>();
    AtomicBoolean noThread = new AtomicBoolean();
    Executor probes =
        r -> {
          if (noThread.get()) {
            throw new OutOfMemoryError("unable to create native thread");
          }
          handed.add(r);
        };
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, probes)) {
      // The open's read fails: the counter is demoted and its re-probe due at once, after entering.
      counter.failWith(CounterIssue.READ_FAILED);
      noThread.set(true);
      clock.advanceMillis(5);
      MeterWindow w = ScheduleFailureTest.openOrFail(meter);
      counter.failWith(null);
      noThread.set(false);
      clock.advanceMillis(50);
      assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(OpenWindows.on(counter.hardware())).isZero();
      assertThat(handed).as("the re-probe, handed over at the close").hasSize(1);
      handed.getFirst().run();
      assertThat(meter.liveDomains()).containsExactly(CPU0);
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  /**
   * The executor queues the probe, then fails to start the thread that would run it (as a
   * ScheduledThreadPoolExecutor does): the probe taken for lost runs later, once the thread starts.
   */
  @Test
  void aProbeQueuedThoughItsStartFailed_doesNothingWhenItRunsAfterItsClaimWasGivenBack() {
    CopyOnWriteArrayList<Runnable> handed = new CopyOnWriteArrayList<>();
    AtomicBoolean noThread = new AtomicBoolean();
    Executor probes =
        r -> {
          handed.add(r);
          if (noThread.get()) {
            throw new OutOfMemoryError("unable to create native thread");
          }
        };
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, probes)) {
      counter.failWith(CounterIssue.READ_FAILED);
      noThread.set(true);
      clock.advanceMillis(5);
      MeterWindow w = ScheduleFailureTest.openOrFail(meter);
      counter.failWith(null);
      noThread.set(false);
      clock.advanceMillis(50);
      assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(handed)
          .as("the probe queued at the open, and the one handed over at the close")
          .hasSize(2);
      handed.getFirst().run();
      assertThat(meter.liveDomains())
          .as("live after the probe whose start failed ran late")
          .isEmpty();
      handed.get(1).run();
      assertThat(meter.liveDomains()).containsExactly(CPU0);
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }
}
