package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * A probe times a counter's updates by its polls (§3.3; the meter then refuses windows too short
 * for the update period it learnt), whatever the origin of the monotonic clock. {@link
 * System#nanoTime()} promises no origin, and its values may be negative.
 */
class LivenessProbeClockOriginTest {
  private static final long MS = 1_000_000L;

  /** The update period a standard probe learns of a counter that moves on every third 1 ms poll. */
  private static long learntPeriod(long origin) {
    JumpingClock clock = new JumpingClock(origin);
    ScriptedChannel channel = new ScriptedChannel(EnergyDomain.cpuPackage(0), 10);
    channel.advanceEvery(3, 10);
    DomainLedger ledger = new DomainLedger(channel, LivenessPolicy.standard(), clock);
    LivenessVerdict v = new LivenessProbe(clock).probe(List.of(ledger)).getFirst();
    assertThat(v.isLive()).as("origin %d: %s", origin, v.detail()).isTrue();
    return v.updatePeriodNanos();
  }

  @Test
  void theUpdatePeriod_isTimedByThePolls_onAClockWithAPositiveOrigin() {
    assertThat(learntPeriod(1_000 * MS)).isEqualTo(3 * MS);
  }

  /**
   * Regression: the last change's time was kept with -1 for "none yet", so on a clock whose values
   * are negative no gap between changes was ever measured, and the period fell back to the 20 ms
   * between samples: a counter updating every 3 ms was taken to update every 20, and windows it
   * could have measured were refused as too short.
   */
  @Test
  void theUpdatePeriod_isTimedByThePolls_onAClockWithANegativeOrigin() {
    assertThat(learntPeriod(-5_000 * MS)).isEqualTo(3 * MS);
    assertThat(learntPeriod(-200 * MS)).isEqualTo(3 * MS);
  }
}
