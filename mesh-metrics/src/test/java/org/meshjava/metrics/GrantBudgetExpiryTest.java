package org.meshjava.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantId;

/**
 * The grant meters keep a grant only until its chain expires. A soak of `mesh serve` with callers
 * issuing short-lived grants found one entry kept per grant ever debited, for the life of the
 * process, and the summed remaining budget still counting grants that could never be spent again.
 */
class GrantBudgetExpiryTest {
  private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicReference<Instant> now = new AtomicReference<>(T0);
  private final InstantSource clock = () -> now.get();

  @Test
  void summedRemainingBudget_whenAGrantsChainExpired_noLongerCountsIt() {
    StewardMetrics metrics = StewardMetrics.builder(registry).clock(clock).build();
    metrics.debited(debit(1, 300, 700, T0.plusSeconds(10)));
    metrics.debited(debit(2, 100, 900, T0.plusSeconds(100)));
    assertThat(remainingSum()).isEqualTo(1600.0);

    now.set(T0.plusSeconds(10));

    assertThat(remainingSum()).isEqualTo(900.0);
    assertThat(registry.get("mesh.grant.spend").counter().count()).isEqualTo(400.0);
  }

  @Test
  void grantIdSeries_whenTheGrantsChainExpired_areRemoved() {
    StewardMetrics metrics =
        StewardMetrics.builder(registry).grantIdTags(true).clock(clock).build();
    metrics.debited(debit(1, 300, 700, T0.plusSeconds(10)));
    metrics.debited(debit(2, 100, 900, T0.plusSeconds(100)));
    assertThat(registry.find("mesh.grant.budget.remaining").gauges()).hasSize(2);

    now.set(T0.plusSeconds(11));
    metrics.debited(debit(2, 100, 800, T0.plusSeconds(100)));

    assertThat(registry.find("mesh.grant.budget.remaining").gauges())
        .singleElement()
        .satisfies(g -> assertThat(g.getId().getTag("grant_id")).isEqualTo(id(2).hex()));
    assertThat(registry.find("mesh.grant.spend").counters())
        .singleElement()
        .satisfies(c -> assertThat(c.count()).isEqualTo(200.0));
  }

  /**
   * Regression: a debit that landed after its grant's chain expired (a serve decided before the
   * expiry, settled after it) registered the forgotten grant again, its series back with a spend
   * counter restarted from that one debit, until the next debit or read forgot it once more.
   */
  @Test
  void aLateDebit_afterTheChainExpired_doesNotBringTheGrantsSeriesBack() {
    StewardMetrics metrics =
        StewardMetrics.builder(registry).grantIdTags(true).clock(clock).build();
    metrics.debited(debit(1, 300, 700, T0.plusSeconds(10)));

    now.set(T0.plusSeconds(11));
    metrics.debited(debit(1, 50, 650, T0.plusSeconds(10)));
    // Never kept at all: decided before its expiry, first debited after it.
    metrics.debited(debit(2, 20, 980, T0.plusSeconds(5)));

    assertThat(registry.find("mesh.grant.budget.remaining").gauges()).isEmpty();
    assertThat(registry.find("mesh.grant.spend").counters()).isEmpty();
  }

  @Test
  void aLateDebit_countsInTheSummedSpend_butNotInTheRemainingBudget() {
    StewardMetrics metrics = StewardMetrics.builder(registry).clock(clock).build();
    metrics.debited(debit(1, 300, 700, T0.plusSeconds(10)));
    metrics.debited(debit(2, 100, 900, T0.plusSeconds(100)));

    now.set(T0.plusSeconds(11));
    metrics.debited(debit(1, 50, 650, T0.plusSeconds(10)));

    assertThat(registry.get("mesh.grant.spend").counter().count()).isEqualTo(450.0);
    assertThat(remainingSum()).isEqualTo(900.0);
  }

  @Test
  void grantSeries_overManyShortLivedGrants_stayAsFewAsTheUnexpiredOnes() {
    StewardMetrics metrics =
        StewardMetrics.builder(registry).grantIdTags(true).clock(clock).build();
    for (int i = 0; i < 1000; i++) {
      // Each grant lives 30 s; one is debited every second, so about 30 are unexpired at a time.
      metrics.debited(debit(i, 10, 90, now.get().plusSeconds(30)));
      now.set(now.get().plus(Duration.ofSeconds(1)));
    }

    assertThat(registry.find("mesh.grant.budget.remaining").gauges()).hasSizeLessThanOrEqualTo(31);
    assertThat(registry.find("mesh.grant.spend").counters()).hasSizeLessThanOrEqualTo(31);
  }

  @Test
  void aGrantWithNoExpiry_isKept() {
    StewardMetrics metrics = StewardMetrics.builder(registry).clock(clock).build();
    metrics.debited(debit(1, 300, 700, Instant.MAX));

    now.set(T0.plus(Duration.ofDays(3650)));

    assertThat(remainingSum()).isEqualTo(700.0);
  }

  private double remainingSum() {
    return registry.get("mesh.grant.budget.remaining").gauge().value();
  }

  private static DebitResult debit(int grant, long debitedUj, long remainingUj, Instant expiry) {
    return new DebitResult(id(grant), debitedUj, Optional.empty(), remainingUj, expiry);
  }

  private static GrantId id(int n) {
    byte[] b = new byte[32];
    b[28] = (byte) (n >>> 24);
    b[29] = (byte) (n >>> 16);
    b[30] = (byte) (n >>> 8);
    b[31] = (byte) n;
    return GrantId.fromHex(HexFormat.of().formatHex(b));
  }
}
