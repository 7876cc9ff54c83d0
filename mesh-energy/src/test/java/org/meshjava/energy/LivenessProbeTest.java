package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/** The probe drives the clock and reads every counter at every sample. */
class LivenessProbeTest {

  /** The standard cadence without polls between samples, so reads are one per sample. */
  private static final LivenessPolicy UNPOLLED =
      new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(400), Duration.ofMillis(20));

  private static LivenessProbe.Target target(ScriptedChannel c) {
    return new LivenessProbe.Target() {
      @Override
      public String name() {
        return c.name();
      }

      @Override
      public LivenessPolicy policy() {
        return UNPOLLED;
      }

      @Override
      public long readLivenessMark() throws CounterException {
        return c.readTotalUj();
      }
    };
  }

  @Test
  void probe_judgesEachCounterSeparatelyInOnePass() {
    FakeClock clock = new FakeClock();
    long start = clock.nanoTime();
    ScriptedChannel steady = new ScriptedChannel(EnergyDomain.cpuPackage(0), 10);
    ScriptedChannel frozen = new ScriptedChannel(EnergyDomain.dram(0), 10);
    frozen.freeze();
    ScriptedChannel failing = new ScriptedChannel(EnergyDomain.gpu(0), 10);
    failing.failWith(CounterIssue.NATIVE_ERROR);
    List<LivenessVerdict> v =
        new LivenessProbe(clock).probe(List.of(target(steady), target(frozen), target(failing)));
    assertThat(v.get(0).isLive()).isTrue();
    assertThat(v.get(1).issue()).contains(CounterIssue.FROZEN);
    assertThat(v.get(2).issue()).contains(CounterIssue.READ_FAILED);
    assertThat(steady.reads()).isEqualTo(21);
    assertThat(clock.nanoTime() - start).isEqualTo(400_000_000L);
  }

  @Test
  void probe_whenCounterUpdatesOnlyEveryThirdSample_isLumpy() {
    FakeClock clock = new FakeClock();
    ScriptedChannel lumpy = new ScriptedChannel(EnergyDomain.cpuPackage(0), 10);
    lumpy.advanceEvery(3, 10);
    LivenessVerdict v = new LivenessProbe(clock).probe(List.of(target(lumpy))).getFirst();
    assertThat(v.issue()).contains(CounterIssue.LUMPY);
  }
}
