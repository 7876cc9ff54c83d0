package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.meshjava.core.ContentId;
import org.meshjava.energy.CounterStatus;
import org.meshjava.steward.Readiness;

/**
 * The steward's readiness report as JSON, written once for both endpoints that show it ({@code GET
 * /readyz} and the console's {@code GET /v1/mesh/status}, SPEC.md §75): each wrote its own, and the
 * same facts drifted apart under different names (the chain's head was {@code head} in one and
 * {@code prev} in the other).
 */
final class ReadinessJson {
  private ReadinessJson() {}

  /** Adds the report's {@code chain}, {@code journal}, {@code grants} and {@code meter} to root. */
  static void write(Readiness r, ObjectNode root) {
    ObjectNode chain = root.putObject("chain");
    chain.put("next_sequence", r.head().nextSequence());
    chain.put("head", r.head().prev().map(ContentId::hex).orElse(null));
    ObjectNode journal = root.putObject("journal");
    journal.put("description", r.journal().description());
    journal.put("durable", r.journal().durable());
    journal.put("locked", r.journal().locked());
    journal.put("writable", r.journal().writable());
    journal.put("refuses_appends", r.journal().refusesAppends().orElse(null));
    ObjectNode grants = root.putObject("grants");
    grants.put("honoured", r.grants().honoured());
    grants.put("refused_because", r.grants().refusedBecause().orElse(null));
    ObjectNode meter = root.putObject("meter");
    meter.put("name", r.meter().name());
    meter.put("estimator_only", r.meter().estimatorOnly());
    ArrayNode live = meter.putArray("live_domains");
    r.meter().liveDomains().forEach(d -> live.add(d.toString()));
    ArrayNode counters = meter.putArray("counters");
    for (CounterStatus c : r.meter().counters()) {
      ObjectNode each = counters.addObject();
      each.put("counter", c.counter());
      each.put("domain", c.domain().map(Object::toString).orElse(null));
      each.put("state", c.state().name().toLowerCase(Locale.ROOT));
      each.put("issue", c.issue().map(i -> i.name().toLowerCase(Locale.ROOT)).orElse(null));
      each.put("detail", c.detail());
    }
  }
}
