package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * What a counter's liveness verdicts log, with {@code DomainLedger} at INFO (this module's test
 * {@code simplelogger.properties}): a library says a counter is live at INFO only when it comes
 * back after a WARN said it was not; every other live verdict (the first probe, each periodic
 * re-probe) is at DEBUG, since discovery's one INFO line names the live domains.
 */
class CounterLogLevelsTest {
  private final FakeClock clock = new FakeClock();
  private final DomainLedger ledger =
      new DomainLedger(
          new ScriptedChannel(EnergyDomain.cpuPackage(0), 10), LivenessPolicy.standard(), clock);

  /**
   * Regression: every probe that found a counter live logged an INFO line for it, so a steward with
   * counters logged one per counter at each build and again at every periodic re-probe.
   */
  @Test
  void liveAtEveryProbe_logsNothingAtInfo_andItsRecoveryAfterAWarning_logsOneInfoLine() {
    String first = logOf(() -> probe(LivenessVerdict.live("advances", 1_000_000)));
    String reprobe = logOf(() -> probe(LivenessVerdict.live("advances", 1_000_000)));
    String refused = logOf(() -> probe(LivenessVerdict.notLive(CounterIssue.FROZEN, "frozen")));
    String back = logOf(() -> probe(LivenessVerdict.live("advances again", 1_000_000)));
    String after = logOf(() -> probe(LivenessVerdict.live("advances", 1_000_000)));

    assertThat(first).isEmpty();
    assertThat(reprobe).isEmpty();
    assertThat(refused).contains("WARN").contains("is not live (FROZEN)");
    assertThat(back.lines()).singleElement().asString().contains("INFO").contains("is live");
    assertThat(after).isEmpty();
  }

  private void probe(LivenessVerdict verdict) {
    ledger.beginProbe();
    ledger.endProbe(verdict, clock.nanoTime());
  }

  /** What {@code action} wrote to standard error, where slf4j-simple logs; for other tests too. */
  static String logOf(Runnable action) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
