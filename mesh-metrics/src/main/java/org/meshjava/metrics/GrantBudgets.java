package org.meshjava.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantId;

/**
 * The grant meters of {@link StewardMetrics}: {@code mesh.grant.spend} and {@code
 * mesh.grant.budget.remaining}, summed over grants or, when the operator opted in, one series per
 * grant.
 *
 * <p><b>Bounded by expiry.</b> The remaining budget of each grant debited is kept only until its
 * chain expires ({@link DebitResult#chainExpiry()}), judged by the clock at each debit and each
 * read of the summed gauge; then it is forgotten, with the grant's own series when there are any.
 * An expired chain can never be presented again, so what it had left is no budget anyone can spend
 * and counting it would overstate the sum; and without forgetting, a steward whose callers issue
 * short-lived grants kept one entry (or two series) per grant for as long as it ran. What is kept
 * follows the unexpired grants, as the steward's spend ledger does. A chain with no expiry is kept
 * for good, as there.
 *
 * <p>Thread-safe: one lock, taken once per debit and per read of the sum.
 */
final class GrantBudgets {
  /** What is kept for one grant: its remaining budget, and its own meters if it has any. */
  private record Kept(AtomicLong remainingUj, Counter spend, @Nullable Gauge gauge) {}

  /** A grant to forget once the clock reaches {@code at}. */
  private record Expiring(Instant at, GrantId grant) {}

  private final MeterRegistry registry;
  private final boolean grantIdTags;
  private final InstantSource clock;
  private final @Nullable Counter totalSpend;
  private final Map<GrantId, Kept> kept = new HashMap<>();
  private final PriorityQueue<Expiring> expiring =
      new PriorityQueue<>(Comparator.comparing(Expiring::at));

  GrantBudgets(MeterRegistry registry, boolean grantIdTags, InstantSource clock) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.grantIdTags = grantIdTags;
    this.clock = Objects.requireNonNull(clock, "clock");
    if (grantIdTags) {
      totalSpend = null;
    } else {
      totalSpend = spendCounter(Tags.empty());
      Gauge.builder("mesh.grant.budget.remaining", this, GrantBudgets::sum)
          .description("Microjoules left, summed over the unexpired grants debited since start")
          .baseUnit("microjoules")
          .register(registry);
    }
  }

  /**
   * Records a debit: the grant's spend, and what its chain has left. A debit that lands once its
   * chain has expired (a serve decided before the expiry settles after it) counts in the summed
   * spend, but the grant is not kept again: registered anew, its own series would come back with a
   * spend counter restarted from that one debit, until the next debit or read forgot it. With
   * per-grant series such a debit is therefore in none of them.
   */
  synchronized void debited(DebitResult debit) {
    forgetExpired();
    Kept k = kept.get(debit.grantId());
    if (k == null) {
      if (!clock.instant().isBefore(debit.chainExpiry())) {
        if (totalSpend != null) {
          totalSpend.increment((double) debit.debitedUj());
        }
        return;
      }
      k = keep(debit.grantId());
      kept.put(debit.grantId(), k);
      if (!debit.chainExpiry().equals(Instant.MAX)) {
        expiring.add(new Expiring(debit.chainExpiry(), debit.grantId()));
      }
    }
    k.spend().increment((double) debit.debitedUj());
    k.remainingUj().set(debit.remainingUj());
  }

  /** What the unexpired grants have left, summed. */
  synchronized double sum() {
    forgetExpired();
    double sum = 0;
    for (Kept k : kept.values()) {
      sum += k.remainingUj().get();
    }
    return sum;
  }

  private Kept keep(GrantId grant) {
    AtomicLong left = new AtomicLong();
    if (totalSpend != null) {
      return new Kept(left, totalSpend, null);
    }
    Tags tags = Tags.of("grant_id", grant.hex());
    Gauge gauge =
        Gauge.builder("mesh.grant.budget.remaining", left, AtomicLong::get)
            .description("Microjoules the grant's chain has left after its last debit")
            .baseUnit("microjoules")
            .tags(tags)
            .register(registry);
    return new Kept(left, spendCounter(tags), gauge);
  }

  private Counter spendCounter(Tags tags) {
    return Counter.builder("mesh.grant.spend")
        .description("Microjoules debited from grants (per grant only if the operator opted in)")
        .baseUnit("microjoules")
        .tags(tags)
        .register(registry);
  }

  /** Forgets every grant whose chain expired by now, and removes its own series. */
  private void forgetExpired() {
    if (expiring.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    while (!expiring.isEmpty() && !now.isBefore(expiring.peek().at())) {
      Kept k = kept.remove(expiring.poll().grant());
      if (k != null && grantIdTags) {
        registry.remove(k.spend());
        Gauge g = k.gauge();
        if (g != null) {
          registry.remove(g);
        }
      }
    }
  }
}
