package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * A RAPL zone read across its wrap at exactly {@code max_energy_range_uj}, at a real package's
 * range. The kernel's {@code energy_uj} is the 32-bit energy status register times the energy unit,
 * and {@code max_energy_range_uj} is the register's largest value times the same unit: the file
 * reads the range itself before it wraps, and the wrap steps from the range to 0 by one energy unit
 * (61 µJ at the 2^-14 J unit behind this range), not by 1 µJ and not by nothing. The meter adds
 * {@code range − previous + unit + current}, the unit being the range over 2^32 − 1 (SPEC.md 40
 * §1).
 */
class RaplWrapAtRangeTest {
  /** 4 294 967 295 × 61.035 µJ, truncated, as the kernel computes it for a 2^-14 J unit. */
  private static final long RANGE = 262_143_328_850L;

  private static final long MS = 1_000_000L;

  private final FakeClock clock = new FakeClock();

  /** A package zone whose {@code energy_uj} reads {@code values} in turn, 10 ms apart. */
  private RaplChannel zoneReading(Long... values) {
    return zoneOfRangeReading(RANGE, values);
  }

  /** The same for a zone whose range is {@code range}. */
  private RaplChannel zoneOfRangeReading(long range, Long... values) {
    Queue<Long> left = new ArrayDeque<>(List.of(values));
    SysfsReader reader =
        file -> {
          clock.burnUntil(clock.nanoTime() + 10 * MS);
          return Long.toString(left.remove());
        };
    return new RaplChannel(
        "rapl:intel-rapl:0",
        EnergyDomain.cpuPackage(0),
        Path.of("intel-rapl:0", "energy_uj"),
        range,
        reader,
        clock);
  }

  @Test
  void aReadingOfExactlyTheRange_isAReading_andTheWrapFromItAddsOneEnergyUnit() throws Exception {
    RaplChannel zone = zoneReading(RANGE - 1_000, RANGE, 0L, 500L);

    assertThat(zone.readTotalUj()).isZero();
    assertThat(zone.readTotalUj()).as("up to the range itself").isEqualTo(1_000);
    assertThat(zone.readTotalUj()).as("from the range to 0: one 61 µJ unit").isEqualTo(1_061);
    assertThat(zone.readTotalUj()).isEqualTo(1_561);
  }

  @Test
  void aWrapFromBelowTheRange_addsTheRangeLessThePreviousReading_theUnit_andTheNew()
      throws Exception {
    RaplChannel zone = zoneReading(RANGE - 1_000, 250L);

    zone.readTotalUj();

    assertThat(zone.readTotalUj()).isEqualTo(1_000 + 61 + 250);
  }

  /**
   * The unit behind the ranges real zones publish: Intel's usual 2^-14 J, AMD's and Atom's 2^-16 J
   * (the kernel truncates it to 15.258 µJ), and the 15.3 µJ of server DRAM, each times 2^32 − 1.
   */
  @Test
  void theWrapStep_isTheRangeOverTheRegistersLargestValue_toTheMicrojoule() {
    assertThat(RaplChannel.wrapStepUj(RANGE)).isEqualTo(61);
    assertThat(RaplChannel.wrapStepUj(65_532_610_987L)).isEqualTo(15);
    assertThat(RaplChannel.wrapStepUj(65_712_999_613L)).isEqualTo(15);
    assertThat(RaplChannel.wrapStepUj(Long.MAX_VALUE)).isEqualTo(2_147_483_648L);
  }

  /**
   * A unit whose fraction of a microjoule is more than a half rounds up: at 2^-15 J (30.52 µJ) the
   * wrap adds 31 µJ, not 30, or every wrap would lose half a microjoule more than it must.
   */
  @Test
  void aUnitOverHalfAMicrojoulePastAWholeOne_roundsTheWrapStepUp() throws Exception {
    long range = 131_071_999_969L; // 4 294 967 295 × 30.517578125 µJ, truncated
    assertThat(RaplChannel.wrapStepUj(range)).isEqualTo(31);
    RaplChannel zone = zoneOfRangeReading(range, range - 1_000, range, 0L);
    zone.readTotalUj();
    zone.readTotalUj();
    assertThat(zone.readTotalUj()).isEqualTo(1_000 + 31);
  }

  @Test
  void aReadingOneAboveTheRange_isRefusedAsAReset() throws Exception {
    RaplChannel zone = zoneReading(RANGE - 1_000, RANGE + 1);
    zone.readTotalUj();

    assertThatThrownBy(zone::readTotalUj)
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> {
              assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET);
              assertThat(e.getMessage()).contains("outside its range 0.." + RANGE);
            });
  }
}
