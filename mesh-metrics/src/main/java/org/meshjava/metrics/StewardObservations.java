package org.meshjava.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * One Micrometer {@link Observation} per serve ({@value #SERVE}), with a child observation per
 * phase ({@value #PHASE}: route, authorise, meter, seal), for traces and timers. The serve's
 * observation carries the OpenTelemetry GenAI attributes that apply and the mesh facts of its
 * receipt:
 *
 * <table>
 *   <caption>Key values of {@value #SERVE}</caption>
 *   <tr><th>key</th><th>cardinality</th><th>value</th></tr>
 *   <tr><td>{@code gen_ai.operation.name}</td><td>low</td><td>{@code chat} for a generation,
 *       {@code decision} for a typed decision (§3.6)</td></tr>
 *   <tr><td>{@code gen_ai.provider.name}</td><td>low</td><td>{@code mesh}</td></tr>
 *   <tr><td>{@code gen_ai.response.model}</td><td>low</td><td>the backend that served, or
 *       {@code none}</td></tr>
 *   <tr><td>{@code mesh.outcome}</td><td>low</td><td>{@code served}, {@code refused} or
 *       {@code failed}</td></tr>
 *   <tr><td>{@code mesh.energy.provenance}</td><td>low</td><td>{@code HwShunt}, {@code
 *       ModelBased}, {@code Estimator}, or {@code none}</td></tr>
 *   <tr><td>{@code mesh.refusal.reason}</td><td>low</td><td>the refusal's reason, or {@code
 *       none}</td></tr>
 *   <tr><td>{@code mesh.denial_label}</td><td>low</td><td>the JCP denial label, or {@code
 *       none}</td></tr>
 *   <tr><td>{@code gen_ai.request.model}</td><td>high</td><td>the model the request named, if
 *       any (callers choose it, so it is never a metric tag)</td></tr>
 *   <tr><td>{@code gen_ai.usage.input_tokens}, {@code gen_ai.usage.output_tokens}</td>
 *       <td>high</td><td>the receipt's {@code tokens_in} and {@code tokens_out}</td></tr>
 *   <tr><td>{@code mesh.energy.uj}</td><td>high</td><td>the receipt's energy in µJ</td></tr>
 *   <tr><td>{@code mesh.receipt.id}</td><td>high</td><td>the receipt envelope's content id
 *       (hex)</td></tr>
 *   <tr><td>{@code mesh.receipt.sequence}</td><td>high</td><td>its place in the chain</td></tr>
 * </table>
 *
 * <p>Low-cardinality keys are always present (as {@code none} where they do not apply), so a meter
 * handler makes one consistent timer of them. A serve observation is opened in scope on the serving
 * thread, so what the engine observes (an upstream HTTP call) nests under it; it takes as parent
 * whatever observation is current when the serve starts, such as the one {@link #received} opens
 * for an HTTP request that carried a W3C {@code traceparent}.
 *
 * <p>Thread-safe. With no handler registered the registry hands out no-op observations.
 */
public final class StewardObservations implements StewardListener {
  /** The name of the observation of one serve. */
  public static final String SERVE = "mesh.serve";

  /** The name of the observation of one phase of a serve; key {@code mesh.phase} names it. */
  public static final String PHASE = "mesh.serve.phase";

  /** The name of the observation {@link #received} opens for an incoming request. */
  public static final String REQUEST = "mesh.http.request";

  private final ObservationRegistry registry;

  /** Observes serves into {@code registry}. */
  public StewardObservations(ObservationRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Opens, in scope on the calling thread, the observation of a request received with {@code
   * headers} (a lookup by lower-case header name): a receiver context whose carrier is the headers,
   * so that a tracing handler continues the trace an incoming W3C {@code traceparent} names. Serves
   * made on this thread before the scope is closed are its children. Close it on the same thread.
   *
   * @param method the request's method, a low-cardinality key ({@code http.request.method}); one
   *     HTTP does not define is tagged {@code _OTHER}, since a client can send any name
   */
  public Received received(String method, Function<String, @Nullable String> headers) {
    Objects.requireNonNull(headers, "headers");
    ReceiverContext<Function<String, @Nullable String>> context =
        new ReceiverContext<>((carrier, key) -> carrier.apply(key.toLowerCase(Locale.ROOT)));
    context.setCarrier(headers);
    Observation observation =
        Observation.createNotStarted(REQUEST, () -> context, registry)
            .lowCardinalityKeyValue("http.request.method", RequestMethodTag.of(method))
            .lowCardinalityKeyValue("http.response.status_code", Refusals.ABSENT)
            .start();
    return new Received(observation, observation.openScope());
  }

  /** The scope of a received request's observation; closing it stops the observation. */
  public static final class Received implements AutoCloseable {
    private final Observation observation;
    private final Observation.Scope scope;

    private Received(Observation observation, Observation.Scope scope) {
      this.observation = observation;
      this.scope = scope;
    }

    /** Records the answer's HTTP status ({@code http.response.status_code}). */
    public void status(int status) {
      observation.lowCardinalityKeyValue("http.response.status_code", Integer.toString(status));
    }

    @Override
    public void close() {
      scope.close();
      observation.stop();
    }
  }

  @Override
  public ServeObserver serveStarted(ServeStarted serve) {
    ServeContext context = new ServeContext(serve);
    String operation = serve.request().isDecision() ? "decision" : "chat";
    Observation observation =
        Observation.createNotStarted(SERVE, () -> context, registry)
            .contextualName(operation + serve.request().model().map(m -> " " + m).orElse(""))
            .lowCardinalityKeyValue("gen_ai.operation.name", operation)
            .lowCardinalityKeyValue("gen_ai.provider.name", "mesh")
            .lowCardinalityKeyValue("gen_ai.response.model", Refusals.ABSENT)
            .lowCardinalityKeyValue("mesh.outcome", Refusals.ABSENT)
            .lowCardinalityKeyValue("mesh.energy.provenance", Refusals.ABSENT)
            .lowCardinalityKeyValue("mesh.refusal.reason", Refusals.ABSENT)
            .lowCardinalityKeyValue("mesh.denial_label", Refusals.ABSENT);
    serve
        .request()
        .model()
        .ifPresent(m -> observation.highCardinalityKeyValue("gen_ai.request.model", m));
    observation.start();
    return new Follower(observation, observation.openScope());
  }

  /** Follows one serve, on its thread. */
  private final class Follower implements ServeObserver {
    private final Observation serve;
    private final Observation.Scope scope;
    private @Nullable Observation phase;

    Follower(Observation serve, Observation.Scope scope) {
      this.serve = serve;
      this.scope = scope;
    }

    @Override
    public void phase(ServePhase next) {
      endPhase(null);
      String name = next.name().toLowerCase(Locale.ROOT);
      phase =
          Observation.createNotStarted(PHASE, registry)
              .parentObservation(serve)
              .contextualName(name)
              .lowCardinalityKeyValue("mesh.phase", name)
              .start();
    }

    private void endPhase(@Nullable Throwable error) {
      Observation current = phase;
      if (current != null) {
        if (error != null) {
          current.error(error);
        }
        current.stop();
        phase = null;
      }
    }

    @Override
    public void served(ServeResult result) {
      endPhase(null);
      MeshReceipt r = result.receipt();
      serve
          .lowCardinalityKeyValue("gen_ai.response.model", r.backend())
          .lowCardinalityKeyValue("mesh.outcome", "served")
          .lowCardinalityKeyValue("mesh.energy.provenance", r.energy().provenance().name())
          .highCardinalityKeyValue(
              "gen_ai.usage.input_tokens", Long.toString(r.counters().tokensIn()))
          .highCardinalityKeyValue(
              "gen_ai.usage.output_tokens", Long.toString(r.counters().tokensOut()))
          .highCardinalityKeyValue("mesh.energy.uj", Long.toString(r.energy().uj()))
          .highCardinalityKeyValue("mesh.receipt.id", result.envelope().id().hex())
          .highCardinalityKeyValue("mesh.receipt.sequence", Long.toString(r.sequence()));
      end();
    }

    @Override
    public void refused(ServeException refusal) {
      endPhase(refusal);
      serve
          .lowCardinalityKeyValue("mesh.outcome", "refused")
          .lowCardinalityKeyValue("mesh.refusal.reason", Refusals.reason(refusal))
          .lowCardinalityKeyValue("mesh.denial_label", Refusals.denialLabel(refusal))
          .error(refusal);
      end();
    }

    @Override
    public void failed(Throwable failure) {
      endPhase(failure);
      serve.lowCardinalityKeyValue("mesh.outcome", "failed").error(failure);
      end();
    }

    private void end() {
      scope.close();
      serve.stop();
    }
  }
}
