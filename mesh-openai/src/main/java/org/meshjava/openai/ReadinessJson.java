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

  /** Who reads the report, which decides whether the host's own facts are in it. */
  enum Reader {
    /**
     * The console's reader, the operator: everything, the journal's location and failure text and
     * each counter's detail included.
     */
    OPERATOR,
    /**
     * Whoever reaches the API listener, which may face the network: the same fields less those that
     * describe the host rather than the steward's state (the journal's file or database, with its
     * host and user, the text of a write failure, which names the file, and each counter's detail,
     * which names devices and files). A probe needs only the status code, and the rest tells an
     * operator what is wrong without telling a stranger where things are.
     */
    ANYONE
  }

  /** Adds the report's {@code chain}, {@code journal}, {@code grants} and {@code meter} to root. */
  static void write(Readiness r, ObjectNode root, Reader reader) {
    boolean operator = reader == Reader.OPERATOR;
    ObjectNode chain = root.putObject("chain");
    chain.put("next_sequence", r.head().nextSequence());
    chain.put("head", r.head().prev().map(ContentId::hex).orElse(null));
    ObjectNode journal = root.putObject("journal");
    if (operator) {
      journal.put("description", r.journal().description());
    }
    journal.put("durable", r.journal().durable());
    journal.put("locked", r.journal().locked());
    journal.put("writable", r.journal().writable());
    if (operator) {
      journal.put("refuses_appends", r.journal().refusesAppends().orElse(null));
    }
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
      if (operator) {
        each.put("detail", c.detail());
      }
    }
  }
}
