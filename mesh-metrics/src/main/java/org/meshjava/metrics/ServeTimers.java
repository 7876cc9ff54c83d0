package org.meshjava.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * The timers {@link StewardObservations} yields through Micrometer's {@code
 * DefaultMeterObservationHandler} ({@value StewardObservations#SERVE}, {@value
 * StewardObservations#PHASE} and {@value StewardObservations#REQUEST}, each with its
 * low-cardinality key values and {@code error} as tags), recorded straight into a {@link
 * MeterRegistry} for a process that traces nothing, such as {@code mesh serve}. Same names, tags
 * and durations; none of the observations' contexts, scopes or per-stop meter lookups: each timer
 * is looked up once per tag set and kept, as {@link StewardMetrics} keeps its meters.
 *
 * <p>An application with a tracer keeps {@link StewardObservations}, whose observations also carry
 * the high-cardinality attributes and a trace's parentage. Beside observations whose meter handler
 * writes to the same registry, these timers would count every serve twice: bind one or the other.
 *
 * <p>Thread-safe; a serve's calls, and a {@link Request}'s, come on one thread.
 */
public final class ServeTimers implements StewardListener {

  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<ServeTags, Timer> serves = new ConcurrentHashMap<>();
  private final Map<PhaseTags, Timer> phases = new ConcurrentHashMap<>();
  private final Map<RequestTags, Timer> requests = new ConcurrentHashMap<>();

  /** Records into {@code registry}; configure its filters before the first serve. */
  public ServeTimers(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.clock = registry.config().clock();
  }

  /**
   * Starts timing a request received with {@code method} ({@code http.request.method}, {@code
   * _OTHER} for one HTTP does not define, as {@link StewardObservations} tags it); close it on the
   * same thread once answered.
   */
  public Request request(String method) {
    return new Request(
        RequestMethodTag.of(Objects.requireNonNull(method, "method")), clock.monotonicTime());
  }

  /** One received request's timing; {@link #close} records it. */
  public final class Request implements AutoCloseable {
    private final String method;
    private final long start;
    private int status = -1;

    private Request(String method, long start) {
      this.method = method;
      this.start = start;
    }

    /** Records the answer's HTTP status ({@code http.response.status_code}). */
    public void status(int status) {
      this.status = status;
    }

    @Override
    public void close() {
      long nanos = clock.monotonicTime() - start;
      requests
          .computeIfAbsent(new RequestTags(method, status), ServeTimers.this::requestTimer)
          .record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public ServeObserver serveStarted(ServeStarted serve) {
    return new Follower(serve.request().isDecision() ? "decision" : "chat", clock.monotonicTime());
  }

  /** Times one serve and its phases, on the serve's thread. */
  private final class Follower implements ServeObserver {
    private final String operation;
    private final long start;
    private @Nullable ServePhase phase;
    private long phaseStart;

    Follower(String operation, long start) {
      this.operation = operation;
      this.start = start;
    }

    @Override
    public void phase(ServePhase next) {
      long now = clock.monotonicTime();
      endPhase(now, null);
      phase = next;
      phaseStart = now;
    }

    private long endPhase(long now, @Nullable Throwable error) {
      ServePhase current = phase;
      if (current != null) {
        phases
            .computeIfAbsent(
                new PhaseTags(current, errorValue(error)), ServeTimers.this::phaseTimer)
            .record(now - phaseStart, TimeUnit.NANOSECONDS);
        phase = null;
      }
      return now;
    }

    @Override
    public void served(ServeResult result) {
      long now = endPhase(clock.monotonicTime(), null);
      MeshReceipt r = result.receipt();
      end(
          now,
          new ServeTags(
              operation,
              r.backend(),
              "served",
              r.energy().provenance().name(),
              Refusals.ABSENT,
              Refusals.ABSENT,
              errorValue(null)));
    }

    @Override
    public void refused(ServeException refusal) {
      unserved("refused", refusal, Refusals.reason(refusal), Refusals.denialLabel(refusal));
    }

    @Override
    public void failed(Throwable failure) {
      unserved("failed", failure, Refusals.ABSENT, Refusals.ABSENT);
    }

    /** Ends a serve that sealed nothing: no backend or provenance, its phase ended in error. */
    private void unserved(String outcome, Throwable error, String reason, String denialLabel) {
      long now = endPhase(clock.monotonicTime(), error);
      end(
          now,
          new ServeTags(
              operation,
              Refusals.ABSENT,
              outcome,
              Refusals.ABSENT,
              reason,
              denialLabel,
              errorValue(error)));
    }

    private void end(long now, ServeTags tags) {
      serves
          .computeIfAbsent(tags, ServeTimers.this::serveTimer)
          .record(now - start, TimeUnit.NANOSECONDS);
    }
  }

  /** The {@code error} tag as Micrometer's meter handler writes it. */
  private static String errorValue(@Nullable Throwable error) {
    return error == null ? Refusals.ABSENT : error.getClass().getSimpleName();
  }

  /* The tag sets below are the low-cardinality key values StewardObservations sets. */

  private record ServeTags(
      String operation,
      String model,
      String outcome,
      String provenance,
      String reason,
      String denialLabel,
      String error) {}

  private Timer serveTimer(ServeTags t) {
    return registry.timer(
        StewardObservations.SERVE,
        Tags.of(
                "gen_ai.operation.name", t.operation(),
                "gen_ai.provider.name", "mesh",
                "gen_ai.response.model", t.model(),
                "mesh.outcome", t.outcome())
            .and(
                "mesh.energy.provenance", t.provenance(),
                "mesh.refusal.reason", t.reason(),
                "mesh.denial_label", t.denialLabel(),
                "error", t.error()));
  }

  /* A phase's name is lower-cased only when its timer is first registered. */

  private record PhaseTags(ServePhase phase, String error) {}

  private Timer phaseTimer(PhaseTags t) {
    return registry.timer(
        StewardObservations.PHASE,
        Tags.of("mesh.phase", t.phase().name().toLowerCase(Locale.ROOT), "error", t.error()));
  }

  private record RequestTags(String method, int status) {}

  private Timer requestTimer(RequestTags t) {
    return registry.timer(
        StewardObservations.REQUEST,
        Tags.of(
            "http.request.method",
            t.method(),
            "http.response.status_code",
            t.status() < 0 ? Refusals.ABSENT : Integer.toString(t.status()),
            "error",
            Refusals.ABSENT));
  }
}
