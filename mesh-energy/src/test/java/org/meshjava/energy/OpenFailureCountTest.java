package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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

  /**
   * Probes handed over are kept, never run, until the test runs them; while {@code noThread} is
   * set, handing one over fails as an executor that cannot start a thread does, after queuing it
   * first where {@code queuesFirst} (as a ScheduledThreadPoolExecutor does: it runs later, once a
   * thread starts).
   */
  private static final class ThreadlessExecutor implements Executor {
    final List<Runnable> handed = new CopyOnWriteArrayList<>();
    final AtomicBoolean noThread = new AtomicBoolean();
    private final boolean queuesFirst;

    ThreadlessExecutor(boolean queuesFirst) {
      this.queuesFirst = queuesFirst;
    }

    @Override
    public void execute(Runnable r) {
      if (queuesFirst) {
        handed.add(r);
      }
      if (noThread.get()) {
        throw new OutOfMemoryError("unable to create native thread");
      }
      if (!queuesFirst) {
        handed.add(r);
      }
    }
  }

  /**
   * A serve whose open's read fails: the counter is demoted and its re-probe due at once, after
   * entering, when no thread can be started for it; the close, a thread to be had again, hands the
   * re-probe over. The serve is the estimator's, and nothing is left counted.
   */
  private void serveWhoseReprobeCannotStartAtTheOpen(
      CounterMeter meter, ThreadlessExecutor probes) {
    counter.failWith(CounterIssue.READ_FAILED);
    probes.noThread.set(true);
    clock.advanceMillis(5);
    MeterWindow w = ScheduleFailureTest.openOrFail(meter);
    counter.failWith(null);
    probes.noThread.set(false);
    clock.advanceMillis(50);
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(OpenWindows.on(counter.hardware())).isZero();
  }

  @Test
  void aProbeThatCouldNotBeStartedAtAnOpen_failsNoServe_andIsStartedAtTheNext() {
    ThreadlessExecutor probes = new ThreadlessExecutor(false);
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, probes)) {
      serveWhoseReprobeCannotStartAtTheOpen(meter, probes);
      assertThat(probes.handed).as("the re-probe, handed over at the close").hasSize(1);
      probes.handed.getFirst().run();
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
    ThreadlessExecutor probes = new ThreadlessExecutor(true);
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, probes)) {
      serveWhoseReprobeCannotStartAtTheOpen(meter, probes);
      assertThat(probes.handed)
          .as("the probe queued at the open, and the one handed over at the close")
          .hasSize(2);
      probes.handed.getFirst().run();
      assertThat(meter.liveDomains())
          .as("live after the probe whose start failed ran late")
          .isEmpty();
      probes.handed.get(1).run();
      assertThat(meter.liveDomains()).containsExactly(CPU0);
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }
}
