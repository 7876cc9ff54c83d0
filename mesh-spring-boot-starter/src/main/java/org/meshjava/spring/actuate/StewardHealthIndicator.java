package org.meshjava.spring.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.meshjava.steward.Readiness;
import org.meshjava.steward.Steward;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The steward's health, from its {@link Steward#readiness()}: {@code UP} while it can seal receipts
 * (its journal takes appends and, if durable, holds its lock), {@code DOWN} otherwise. Grants
 * refused and an estimator-only meter leave it {@code UP} (ungranted, estimated serves are still
 * correct serves) but show in the details, as the journal and the chain head do:
 *
 * <pre>{@code
 * {"journal": {"description": ..., "durable": true, "locked": true, "writable": true},
 *  "grants": {"honoured": false, "refused_because": ...},
 *  "meter": {"name": ..., "live_domains": [...], "estimator_only": false},
 *  "chain": {"next_sequence": 42}}
 * }</pre>
 */
public final class StewardHealthIndicator implements HealthIndicator {
  private final Steward steward;

  /** Reports on {@code steward}. */
  public StewardHealthIndicator(Steward steward) {
    this.steward = Objects.requireNonNull(steward, "steward");
  }

  @Override
  public Health health() {
    Readiness r = steward.readiness();
    Map<String, Object> journal = new LinkedHashMap<>();
    journal.put("description", r.journal().description());
    journal.put("durable", r.journal().durable());
    journal.put("locked", r.journal().locked());
    journal.put("writable", r.journal().writable());
    r.journal().refusesAppends().ifPresent(why -> journal.put("refuses_appends", why));
    Map<String, Object> grants = new LinkedHashMap<>();
    grants.put("honoured", r.grants().honoured());
    r.grants().refusedBecause().ifPresent(why -> grants.put("refused_because", why));
    Map<String, Object> meter = new LinkedHashMap<>();
    meter.put("name", r.meter().name());
    meter.put("live_domains", r.meter().liveDomains().stream().map(Object::toString).toList());
    meter.put("estimator_only", r.meter().estimatorOnly());
    Health.Builder health = r.ready() ? Health.up() : Health.down();
    return health
        .withDetail("journal", journal)
        .withDetail("grants", grants)
        .withDetail("meter", meter)
        .withDetail("chain", Map.of("next_sequence", r.head().nextSequence()))
        .build();
  }
}
