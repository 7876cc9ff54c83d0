package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * A timed read on the meter's own thread meets an Error out of a counter's read: it is logged, the
 * next timed read is scheduled, and nothing is thrown into the executor (where it ended in a future
 * nobody reads, the fault unheard until the counter was set aside). Fake time; the test runs what
 * is scheduled.
 */
class OwnThreadReadErrorTest {
  private static final EnergyDomain CPU0 = ProbedMeter.CPU0;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter counter = TimedCounter.rapl(CPU0, clock);

  @Test
  void anErrorInATimedRead_isLogged_andTheNextTimedReadIsScheduled() {
    ScheduleFailureTest.RefusingThread thread = new ScheduleFailureTest.RefusingThread();
    try (CounterMeter meter = ScheduleFailureTest.probedOnOwnThread(counter, clock, thread)) {
      assertThat(thread.queued).as("the first timed read").hasSize(1);
      counter.onRead(
          () -> {
            throw new InternalError("driver fault");
          });
      clock.advanceMillis(30_000);
      Runnable timedRead = thread.queued.getFirst().getValue();
      String log =
          CounterLogLevelsTest.logOf(
              () -> {
                try {
                  timedRead.run();
                } catch (RuntimeException | Error e) {
                  throw new AssertionError("thrown into the meter's executor: " + e, e);
                }
              });
      assertThat(log).contains("WARN").contains("timed read").contains("driver fault");
      assertThat(thread.queued).as("the next timed read").hasSize(2);
      assertThat(meter.liveDomains()).as("one Error: not yet set aside").containsExactly(CPU0);
    }
  }
}
