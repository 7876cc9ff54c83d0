package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process read one package; the read one meter takes at the other's open meets
 * the JVM failing (an OutOfMemoryError). That is the process failing, not the counter: it passes to
 * the serve that opened, which leaves nothing counted behind, and the counter is neither demoted
 * nor blamed; the window open in the meter that read is no reading (its books missed the event). A
 * stack overflow there is that counter's failed read, as any other Error. Fake time, no sleeps.
 */
class ForeignJvmFailureTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final TimedCounter second =
      TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);

  /** Throws {@code error} at the next read only. */
  private static Runnable once(Error error) {
    AtomicReference<Error> armed = new AtomicReference<>(error);
    return () -> {
      Error e = armed.getAndSet(null);
      if (e != null) {
        throw e;
      }
    };
  }

  @Test
  void theJvmFailingInTheOtherMetersRead_passesToTheOpen_andBlamesNoCounter() {
    try (CounterMeter a = ProbedMeter.overPackageZero(first, clock, r -> {});
        CounterMeter b = ProbedMeter.overPackageZero(second, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(20);
      second.onRead(once(new OutOfMemoryError("Java heap space")));
      assertThatThrownBy(() -> a.open(Set.of(ProbedMeter.CPU0)))
          .as("the JVM failing, thrown to the serve that opened")
          .isInstanceOf(OutOfMemoryError.class);
      assertThat(OpenWindows.on(first.hardware()))
          .as("windows counted open on the package: the other meter's alone")
          .isEqualTo(1);
      assertThat(b.counters().getFirst().state())
          .as("the counter whose read met the JVM failing: %s", b.counters())
          .isEqualTo(CounterState.LIVE);
      clock.advanceMillis(30);
      assertThat(inB.close(1).provenance())
          .as("its books missed the other meter's open")
          .isEqualTo(Provenance.Estimator);
      assertThat(OpenWindows.on(first.hardware())).isZero();
      assertThat(ProbedMeter.serveAlone(a, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void aStackOverflowInTheOtherMetersRead_isThatCountersFailedRead() {
    try (CounterMeter a = ProbedMeter.overPackageZero(first, clock, r -> {});
        CounterMeter b = ProbedMeter.overPackageZero(second, clock, r -> {})) {
      clock.advanceMillis(5);
      second.onRead(once(new StackOverflowError()));
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      assertThat(b.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
      clock.advanceMillis(50);
      assertThat(inA.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    }
  }
}
