package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * A read that throws something whose own words throw (a channel's exception whose {@code
 * getMessage} fails) is a failed read like any other: the serve is the estimate and the counter
 * says what was thrown by its class's name. Those words used to be built inside the catch that
 * turns the throw into a failed read, so their throw escaped into the serve.
 */
class OddThrowableReadTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter cpu = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final List<Runnable> reprobes = new ArrayList<>();

  /** Thrown by the counter's read; asking it what went wrong throws. Shared with other tests. */
  static final class SpeechlessException extends RuntimeException {
    @Override
    public String getMessage() {
      throw new IllegalStateException("no words");
    }
  }

  /** An Error a driver binding might throw; asking it what went wrong throws. Shared too. */
  static final class SpeechlessError extends LinkageError {
    @Override
    public String getMessage() {
      throw new IllegalStateException("no words");
    }
  }

  /**
   * Regression: the read one meter takes at another meter's close threw an Error whose words throw;
   * the WARN that logs it asked for them (the logging binding prints the throwable), and their
   * throw escaped into the other meter's close, which no counter of its own had failed.
   */
  @Test
  void anErrorWhoseWordsThrow_readAtAnotherMetersClose_isLogged_andNotThrownIntoThatClose() {
    TwoMetersOnePackage pkg = new TwoMetersOnePackage();
    try (CounterMeter a = pkg.overFirst();
        CounterMeter b = pkg.overSecond()) {
      TwoMetersOnePackage.Overlap both = pkg.overlapOverWork(a, b);
      pkg.second.onRead(
          () -> {
            throw new SpeechlessError();
          });

      String log = CounterLogLevelsTest.logOf(() -> both.inA().close(1));

      assertThat(log)
          .contains("at another meter's window threw")
          .contains(SpeechlessError.class.getName());
      pkg.second.onRead(() -> {});
      assertThat(both.inB().close(1).provenance())
          .as("its books missed the other window's leave")
          .isEqualTo(Provenance.Estimator);
    }
  }

  /**
   * Regression: an Error whose words throw, out of a counter's recheck at a probe's start, ended
   * the probe, and the probe's end built the counter's verdict from those words: their throw left
   * the finally that ends every disturbance, so the probe stayed registered and every window of the
   * process was disturbed for good. Then (session 41) the Error ended the probe of every counter
   * taken with it; now it is logged, as an exception there is, and the probe goes on.
   */
  @Test
  void aRecheckThrowingAnErrorWhoseWordsThrow_isLogged_theProbeGoesOn_andEndsItsDisturbance() {
    AtomicBoolean recheckThrows = new AtomicBoolean();
    EnergyChannel channel =
        new ForwardingChannel(cpu) {
          @Override
          public void recheckAtProbe() {
            if (recheckThrows.getAndSet(false)) {
              throw new SpeechlessError();
            }
          }
        };
    aProbeOutlivesTheError_andLeavesNoDisturbance(
        channel, recheckThrows, "could not recheck its set-up");
  }

  /**
   * Over {@code channel}, arms {@code fault}, checks that a probe then returns, having logged the
   * Error as {@code said} (at DEBUG), and that after another a serve alone is a reading: no probe
   * is left disturbing.
   */
  private void aProbeOutlivesTheError_andLeavesNoDisturbance(
      EnergyChannel channel, AtomicBoolean fault, String said) {
    try (CounterMeter meter =
        clock.watch(ProbedMeter.overPackageZero(channel, clock, reprobes::add))) {
      fault.set(true);

      String log =
          UnprintableThrowableAtDebugTest.debugLogOf(
              () -> assertThatCode(meter::probeNow).doesNotThrowAnyException());

      assertThat(fault).as("the channel threw").isFalse();
      assertThat(log).contains(said);
      meter.probeNow();
      assertThat(ProbedMeter.serveAlone(meter, clock))
          .as("no probe left disturbing the domain")
          .isEqualTo(Provenance.HwShunt);
    }
  }

  /**
   * Regression: an Error out of a channel told that its probe ended (thrown on past the ledger's
   * catch, which takes only exceptions) left the probe's end midway: the probe stayed registered,
   * and every window of the process was disturbed for good. Now it is logged, as an exception there
   * is, and the probe ends as any other.
   */
  @Test
  void aChannelToldItsProbeEnded_throwingAnError_isLogged_andTheProbeEndsItsDisturbance() {
    AtomicBoolean endThrows = new AtomicBoolean();
    EnergyChannel channel =
        new ForwardingChannel(cpu) {
          @Override
          public void probing(boolean running) {
            if (!running && endThrows.getAndSet(false)) {
              throw new LinkageError("the driver's binding is gone");
            }
          }
        };
    aProbeOutlivesTheError_andLeavesNoDisturbance(
        channel, endThrows, "could not be told of its probe");
  }

  @Test
  void aReadThrowingAnExceptionWhoseWordsThrow_isAFailedRead_namedByItsClass() {
    try (CounterMeter meter = clock.watch(ProbedMeter.overPackageZero(cpu, clock, reprobes::add))) {
      cpu.onRead(
          () -> {
            throw new SpeechlessException();
          });

      clock.advanceMillis(5);
      MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(50);

      assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
      assertThat(meter.counters().getFirst().detail())
          .contains("threw " + SpeechlessException.class.getName());
    }
  }
}
