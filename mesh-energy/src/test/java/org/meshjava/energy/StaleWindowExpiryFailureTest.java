package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.energy.ProbedMeter.CPU0;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * A read whose expiry counts a stale window out and then fails before the window leaves its own
 * ledger's books (an {@link OutOfMemoryError} making the lists) leaves the books consistent: the
 * window, counted out of the process's count for good, used to stay open in the books, taking a
 * share of every later segment and overlapping every later serve there ({@code ModelBased}). The
 * failure is planted after the count-out ({@link DomainLedger#afterCountOut}).
 */
class StaleWindowExpiryFailureTest {
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final CounterMeter meter =
      ProbedMeter.overPackageZero(TimedCounter.rapl(CPU0, clock), clock, scheduled::add);

  @AfterEach
  void close() {
    meter.close();
  }

  @Test
  void anExpiryCutShortAfterItsCountOut_leavesNoWindowInTheBooks() {
    MeterWindow lost = meter.open(Set.of(CPU0));
    clock.advanceMillis(61 * 60_000L);
    meter
        .ledger(CPU0)
        .afterCountOut(
            () -> {
              throw new OutOfMemoryError("planted: after the count-out");
            });

    assertThatThrownBy(meter::pollCounters).isInstanceOf(OutOfMemoryError.class);
    meter.ledger(CPU0).afterCountOut(() -> {});

    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("a serve after the lost window is alone: nothing was left in the books")
        .isEqualTo(Provenance.HwShunt);
    clock.advanceMillis(50);
    assertThat(lost.close(1_000)).isEqualTo(Energy.estimated(1_000));
  }
}
