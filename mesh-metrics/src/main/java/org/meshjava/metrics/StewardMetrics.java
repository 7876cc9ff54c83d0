package org.meshjava.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.Provenance;
import org.meshjava.energy.CounterState;
import org.meshjava.energy.CounterStatus;
import org.meshjava.jcp.DebitResult;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.Readiness;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * Binds a steward to a Micrometer {@link MeterRegistry}: a {@link StewardListener} that counts and
 * records each serve, refusal, debit and journal write as it happens, plus gauges over the state
 * {@link Steward#readiness()} reports (meter liveness, journal, grants, chain head). Register it on
 * the builder, then {@linkplain #watch watch} the steward it built:
 *
 * <pre>{@code
 * StewardMetrics metrics = StewardMetrics.builder(registry).build();
 * Steward steward = Steward.builder(key).listener(metrics)...build();
 * metrics.watch(steward);
 * }</pre>
 *
 * <p>Every meter, its unit and its tags are listed in the README's metrics table. Names follow
 * Micrometer's dotted convention (a Prometheus registry writes {@code mesh_serves_total}); energy
 * is in microjoules, the unit receipts carry, and durations in seconds.
 *
 * <p><b>Cardinality.</b> Tags take values from closed sets (backend names the operator configured,
 * provenance, outcome, refusal reason, denial label, energy domain), never request or receipt ids.
 * Grant ids become a tag only if the operator asks ({@link Builder#grantIdTags}); otherwise grant
 * spend and remaining budget are aggregated over all grants. Either way one number is kept per
 * grant debited, and only until its chain expires (then its series, if it has any, are removed), so
 * what is kept follows the unexpired grants, as the steward's own spend ledger does.
 *
 * <p><b>Meters are kept.</b> The meters of sealed serves are registered on first use and then held
 * by this binding, so a serve does not look them up again. Configure the registry (meter filters,
 * common tags) before the first serve, as Micrometer asks of any registry in use: a filter added
 * later does not reach meters already held. Removing them from the registry while the binding is in
 * use leaves it recording into the removed meters; clear the registry only with the steward closed.
 *
 * <p>Thread-safe.
 */
public final class StewardMetrics implements StewardListener {

  private final MeterRegistry registry;
  private final Timer journalAppend;
  private final Timer journalSync;
  private final GrantBudgets grants;
  private final Map<ServedBy, ServedMeters> served = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> perToken = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> perDecision = new ConcurrentHashMap<>();
  private final Map<String, Counter> unserved = new ConcurrentHashMap<>();
  private final Map<RefusedAs, Counter> refusals = new ConcurrentHashMap<>();

  private StewardMetrics(Builder b) {
    this.registry = b.registry;
    this.journalAppend =
        Timer.builder("mesh.journal.append")
            .description("Time to fix a journal record's place in the chain and queue it (enqueue)")
            .register(registry);
    this.journalSync =
        Timer.builder("mesh.journal.sync")
            .description("Time waiting for a journal record to be durable (write and sync)")
            .register(registry);
    this.grants = new GrantBudgets(registry, b.grantIdTags, b.clock);
  }

  /** Starts a builder binding to {@code registry}. */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /**
   * Registers gauges over {@code steward}'s state, read at each scrape from {@link
   * Steward#readiness()}: the chain head, whether the journal is writable and locked, whether
   * grants are honoured, and one liveness gauge per meter counter. Call once, with the steward this
   * listener was registered on.
   */
  public StewardMetrics watch(Steward steward) {
    Objects.requireNonNull(steward, "steward");
    Gauge.builder("mesh.chain.head.sequence", steward, s -> s.head().nextSequence())
        .description(
            "The sequence the next receipt will take: 0 before the first receipt, n+1 once"
                + " receipt n is sealed")
        .register(registry);
    Gauge.builder("mesh.journal.writable", steward, s -> flag(s.readiness().journal().writable()))
        .description("1 while the journal takes appends, 0 once closed or failed")
        .register(registry);
    Gauge.builder("mesh.journal.locked", steward, s -> flag(s.readiness().journal().locked()))
        .description("1 while the journal holds an exclusive lock on its storage")
        .register(registry);
    Gauge.builder("mesh.grants.honoured", steward, s -> flag(s.readiness().grants().honoured()))
        .description("1 while grants are honoured, 0 while every grant is refused")
        .register(registry);
    for (CounterStatus c : steward.readiness().meter().counters()) {
      String counter = c.counter();
      Gauge.builder("mesh.meter.counter.live", steward, s -> live(s.readiness(), counter))
          .description("1 while the energy counter is proven live (§3.3), else 0")
          .tag("counter", counter)
          .tag("domain", c.domain().map(Object::toString).orElse(Refusals.ABSENT))
          .register(registry);
    }
    return this;
  }

  private static double flag(boolean b) {
    return b ? 1 : 0;
  }

  private static double live(Readiness r, String counter) {
    for (CounterStatus c : r.meter().counters()) {
      if (c.counter().equals(counter)) {
        return flag(c.state() == CounterState.LIVE);
      }
    }
    return 0;
  }

  @Override
  public ServeObserver serveStarted(ServeStarted serve) {
    return new ServeObserver() {
      @Override
      public void served(ServeResult result) {
        recordServed(result.receipt());
      }

      @Override
      public void refused(ServeException refusal) {
        recordRefused(refusal, "refused");
      }

      @Override
      public void failed(Throwable failure) {
        unserved.computeIfAbsent("failed", StewardMetrics.this::unservedCounter).increment();
      }
    };
  }

  private void recordServed(MeshReceipt receipt) {
    String backend = receipt.backend();
    ServedMeters meters =
        served.computeIfAbsent(
            new ServedBy(backend, receipt.energy().provenance()), this::servedMeters);
    meters.serves().increment();
    meters.energy().record((double) receipt.energy().uj());
    receipt
        .ujPerAcceptedToken()
        .ifPresent(
            uj -> perToken.computeIfAbsent(backend, this::perTokenMeter).record((double) uj));
    receipt
        .ujPerDecision()
        .ifPresent(
            uj -> perDecision.computeIfAbsent(backend, this::perDecisionMeter).record((double) uj));
  }

  /*
   * The meters of sealed serves are looked up once per tag set and kept, as Micrometer advises
   * for a hot path: registering by name and tags on every serve would build and hash each meter's
   * id again, several times a serve. Each is still registered only when first needed, so a backend
   * that never answers a decision has no per-decision series.
   */

  private ServedMeters servedMeters(ServedBy by) {
    Tags tags = Tags.of("backend", by.backend(), "provenance", by.provenance().name());
    return new ServedMeters(
        Counter.builder("mesh.serves")
            .description("Serves by backend, energy provenance and outcome")
            .tags(tags.and("outcome", "served"))
            .register(registry),
        DistributionSummary.builder("mesh.serve.energy")
            .description("Energy of one sealed serve, as its receipt states it")
            .baseUnit("microjoules")
            .tags(tags)
            .publishPercentileHistogram()
            .minimumExpectedValue(1.0)
            .maximumExpectedValue(1e12)
            .register(registry));
  }

  private DistributionSummary perTokenMeter(String backend) {
    return perUnitMeter(
        "mesh.serve.energy.per.token",
        "Microjoules per accepted token of a generation (§6.2)",
        backend);
  }

  private DistributionSummary perDecisionMeter(String backend) {
    return perUnitMeter(
        "mesh.serve.energy.per.decision",
        "Microjoules per answered question of a typed decision (§3.6)",
        backend);
  }

  private DistributionSummary perUnitMeter(String name, String description, String backend) {
    return DistributionSummary.builder(name)
        .description(description)
        .baseUnit("microjoules")
        .tag("backend", backend)
        .register(registry);
  }

  /** Which backend sealed a serve, and how its energy was graded: the tags of its meters. */
  private record ServedBy(String backend, Provenance provenance) {}

  /** The meters every sealed serve records into. */
  private record ServedMeters(Counter serves, DistributionSummary energy) {}

  /*
   * Refusals and failures keep their meters as sealed serves do: a flood of refusals (429s under
   * overload) is when the steward can least afford to build meter ids. The tag sets are bounded:
   * an outcome, a refusal reason, a denial label.
   */

  private void recordRefused(ServeException refusal, String outcome) {
    unserved.computeIfAbsent(outcome, this::unservedCounter).increment();
    refusals
        .computeIfAbsent(
            new RefusedAs(Refusals.reason(refusal), Refusals.denialLabel(refusal)),
            this::refusalCounter)
        .increment();
  }

  /** The {@code mesh.serves} counter of serves that sealed nothing, by {@code outcome}. */
  private Counter unservedCounter(String outcome) {
    return Counter.builder("mesh.serves")
        .description("Serves by backend, energy provenance and outcome")
        .tags(
            Tags.of("backend", Refusals.ABSENT, "provenance", Refusals.ABSENT, "outcome", outcome))
        .register(registry);
  }

  private Counter refusalCounter(RefusedAs as) {
    return Counter.builder("mesh.serve.refusals")
        .description("Refused serves by reason and JCP denial label")
        .tag("reason", as.reason())
        .tag("denial_label", as.denialLabel())
        .register(registry);
  }

  /** A refusal's tags: its reason and JCP denial label ({@link Refusals}). */
  private record RefusedAs(String reason, String denialLabel) {}

  @Override
  public void debited(DebitResult debit) {
    grants.debited(debit);
  }

  @Override
  public void journalWritten(JournalWrite write) {
    (write.step() == JournalWrite.Step.APPEND ? journalAppend : journalSync)
        .record(write.nanos(), TimeUnit.NANOSECONDS);
  }

  /** Configures a {@link StewardMetrics}. Not thread-safe. */
  public static final class Builder {
    private final MeterRegistry registry;
    private boolean grantIdTags;
    private InstantSource clock = InstantSource.system();

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Tags grant spend and remaining budget with each grant's id ({@code grant_id}): one time
     * series per grant, so only for an operator with few, long-lived grants. A grant's two series
     * are removed once its chain expires. Off by default: spend and remaining budget are then
     * aggregated over all grants.
     */
    public Builder grantIdTags(boolean v) {
      grantIdTags = v;
      return this;
    }

    /**
     * The clock a grant's expiry is judged by, to forget it (default: the system clock). Give the
     * steward's own clock where that is not the system's.
     */
    public Builder clock(InstantSource v) {
      clock = Objects.requireNonNull(v, "clock");
      return this;
    }

    /** Builds the binding and registers its meters that need no steward. */
    public StewardMetrics build() {
      return new StewardMetrics(this);
    }
  }
}
