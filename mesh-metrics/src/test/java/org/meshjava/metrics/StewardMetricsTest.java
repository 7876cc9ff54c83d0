package org.meshjava.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.metrics.ServeFixture.PROMPT;
import static org.meshjava.metrics.ServeFixture.QUESTIONS;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.GrantDeniedException;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;

/** Every meter {@link StewardMetrics} registers: name, unit, tags and value after known serves. */
class StewardMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void afterKnownServes_everyMeterHasItsNameUnitTagsAndValue() throws Exception {
    StewardMetrics metrics = StewardMetrics.builder(registry).build();
    ServeFixture f = new ServeFixture(metrics);
    metrics.watch(f.steward);

    MeshReceipt tiny1 = f.steward.serve(ServeFixture.generation("tiny", 8), PROMPT).receipt();
    MeshReceipt tiny2 = f.steward.serve(ServeFixture.generation("tiny", 3), PROMPT).receipt();
    MeshReceipt decided =
        f.steward.serve(ServeFixture.decision("tiny"), PROMPT, QUESTIONS).receipt();
    GrantChain chain = f.grant(5_000_000);
    ServeRequest granted = ServeFixture.generation("big", 4);
    Presentation once = f.present(chain, granted);
    MeshReceipt big = f.steward.serve(granted, PROMPT, once).receipt();
    GrantDeniedException spent =
        catchThrowableOfType(
            GrantDeniedException.class, () -> f.steward.serve(granted, PROMPT, once));
    assertThat(spent.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
    ServeException unroutable =
        catchThrowableOfType(
            ServeException.class,
            () -> f.steward.serve(ServeFixture.generation("nope", 4), PROMPT));
    assertThat(unroutable.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);

    // Serves by backend, provenance and outcome.
    assertThat(
            counter(
                "mesh.serves", "backend", "tiny", "provenance", "Estimator", "outcome", "served"))
        .isEqualTo(3);
    assertThat(
            counter(
                "mesh.serves", "backend", "big", "provenance", "Estimator", "outcome", "served"))
        .isEqualTo(1);
    assertThat(
            counter("mesh.serves", "backend", "none", "provenance", "none", "outcome", "refused"))
        .isEqualTo(2);
    assertThat(tagKeys("mesh.serves"))
        .containsExactlyInAnyOrder("backend", "provenance", "outcome");

    // Refusals by reason and denial label.
    assertThat(
            counter(
                "mesh.serve.refusals",
                "reason",
                "grant_refused",
                "denial_label",
                "presentation-spent"))
        .isEqualTo(1);
    assertThat(
            counter(
                "mesh.serve.refusals", "reason", "no_admissible_backend", "denial_label", "none"))
        .isEqualTo(1);

    // Energy per serve, as a distribution in µJ.
    DistributionSummary energy =
        registry
            .get("mesh.serve.energy")
            .tags("backend", "tiny", "provenance", "Estimator")
            .summary();
    assertThat(energy.getId().getBaseUnit()).isEqualTo("microjoules");
    assertThat(energy.count()).isEqualTo(3);
    assertThat(energy.totalAmount())
        .isEqualTo((double) tiny1.energy().uj() + tiny2.energy().uj() + decided.energy().uj());
    assertThat(energy.max())
        .isEqualTo(
            (double)
                Math.max(
                    tiny1.energy().uj(), Math.max(tiny2.energy().uj(), decided.energy().uj())));

    // µJ per accepted token and per decision, by backend.
    DistributionSummary perToken =
        registry.get("mesh.serve.energy.per.token").tags("backend", "tiny").summary();
    assertThat(perToken.getId().getBaseUnit()).isEqualTo("microjoules");
    assertThat(perToken.count()).isEqualTo(2);
    assertThat(perToken.totalAmount())
        .isEqualTo(
            (double) tiny1.ujPerAcceptedToken().getAsLong()
                + tiny2.ujPerAcceptedToken().getAsLong());
    DistributionSummary perDecision =
        registry.get("mesh.serve.energy.per.decision").tags("backend", "tiny").summary();
    assertThat(perDecision.getId().getBaseUnit()).isEqualTo("microjoules");
    assertThat(perDecision.count()).isEqualTo(1);
    assertThat(perDecision.totalAmount()).isEqualTo((double) decided.ujPerDecision().getAsLong());

    // Grant spend and remaining budget, aggregated: no grant id anywhere.
    Counter spend = registry.get("mesh.grant.spend").counter();
    assertThat(spend.getId().getBaseUnit()).isEqualTo("microjoules");
    assertThat(spend.getId().getTags()).isEmpty();
    assertThat(spend.count()).isEqualTo((double) big.energy().uj());
    Gauge left = registry.get("mesh.grant.budget.remaining").gauge();
    assertThat(left.getId().getBaseUnit()).isEqualTo("microjoules");
    assertThat(left.getId().getTags()).isEmpty();
    assertThat(left.value()).isEqualTo(5_000_000.0 - big.energy().uj());

    // Journal append and sync latency: every record (4 authorisations, debits and seals) timed.
    Timer append = registry.get("mesh.journal.append").timer();
    Timer sync = registry.get("mesh.journal.sync").timer();
    assertThat(append.getId().getBaseUnit()).isEqualTo("seconds");
    assertThat(append.count()).isGreaterThanOrEqualTo(6);
    assertThat(sync.count()).isGreaterThanOrEqualTo(5);

    // State gauges: chain head, journal, grants; the estimator meter has no counter.
    assertThat(registry.get("mesh.chain.head.sequence").gauge().value()).isEqualTo(4.0);
    assertThat(registry.get("mesh.journal.writable").gauge().value()).isEqualTo(1.0);
    assertThat(registry.get("mesh.journal.locked").gauge().value()).isEqualTo(0.0);
    assertThat(registry.get("mesh.grants.honoured").gauge().value()).isEqualTo(1.0);
    assertThat(registry.find("mesh.meter.counter.live").meters()).isEmpty();

    // Nothing carries a request id, receipt id or grant id.
    for (Meter m : registry.getMeters()) {
      for (Tag t : m.getId().getTags()) {
        assertThat(t.getKey())
            .as(m.getId().getName())
            .isNotIn("grant_id", "request_id", "receipt_id");
      }
    }
    f.steward.close();
    assertThat(registry.get("mesh.journal.writable").gauge().value()).isEqualTo(0.0);
  }

  /**
   * The chain head gauge is the next receipt's sequence, not the last one's: 0 while no receipt is
   * sealed, 1 once receipt 0 is, so "nothing sealed" and "receipt 0 sealed" read differently.
   */
  @Test
  void chainHeadSequence_readsZeroBeforeAnyReceipt_andOneOnceReceiptZeroIsSealed()
      throws Exception {
    StewardMetrics metrics = StewardMetrics.builder(registry).build();
    ServeFixture f = new ServeFixture(metrics);
    metrics.watch(f.steward);
    Gauge head = registry.get("mesh.chain.head.sequence").gauge();
    assertThat(head.value()).isZero();

    MeshReceipt first = f.steward.serve(ServeFixture.generation("tiny", 3), PROMPT).receipt();

    assertThat(first.sequence()).isZero();
    assertThat(head.value()).isEqualTo(1.0);
  }

  @Test
  void grantIdTags_whenOptedIn_tagSpendAndRemainingBudgetPerGrant() throws Exception {
    StewardMetrics metrics = StewardMetrics.builder(registry).grantIdTags(true).build();
    ServeFixture f = new ServeFixture(metrics);
    GrantChain a = f.grant(1_000_000);
    GrantChain b = f.grant(2_000_000);
    ServeRequest r = ServeFixture.generation("tiny", 4);
    ServeResult onA = f.steward.serve(r, PROMPT, f.present(a, r));
    ServeResult onB = f.steward.serve(r, PROMPT, f.present(b, r));
    String idA = onA.receipt().grantId().orElseThrow().hex();
    String idB = onB.receipt().grantId().orElseThrow().hex();

    assertThat(registry.get("mesh.grant.spend").tag("grant_id", idA).counter().count())
        .isEqualTo((double) onA.receipt().energy().uj());
    assertThat(registry.get("mesh.grant.budget.remaining").tag("grant_id", idA).gauge().value())
        .isEqualTo(1_000_000.0 - onA.receipt().energy().uj());
    assertThat(registry.get("mesh.grant.budget.remaining").tag("grant_id", idB).gauge().value())
        .isEqualTo(2_000_000.0 - onB.receipt().energy().uj());
    assertThat(registry.find("mesh.grant.budget.remaining").gauges()).hasSize(2);
  }

  private double counter(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  private Set<String> tagKeys(String name) {
    return registry.find(name).meters().stream()
        .flatMap(m -> m.getId().getTags().stream())
        .map(Tag::getKey)
        .collect(Collectors.toSet());
  }
}
