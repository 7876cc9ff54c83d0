package org.meshjava.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.metrics.ServeFixture.PROMPT;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;

/** One observation per serve, a child per phase, GenAI and mesh key values (in-memory handler). */
class StewardObservationsTest {
  /** Keeps every context that stopped, in stop order. */
  static final class Stopped implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> contexts = new ArrayList<>();

    @Override
    public void onStop(Observation.Context context) {
      contexts.add(context);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }

    List<Observation.Context> named(String name) {
      return contexts.stream().filter(c -> name.equals(c.getName())).toList();
    }
  }

  private final TestObservationRegistry registry = TestObservationRegistry.create();
  private final Stopped stopped = new Stopped();

  StewardObservationsTest() {
    registry.observationConfig().observationHandler(stopped);
  }

  private static String low(Observation.Context c, String key) {
    return Optional.ofNullable(c.getLowCardinalityKeyValue(key)).map(KeyValue::getValue).orElse("");
  }

  private static String high(Observation.Context c, String key) {
    return Optional.ofNullable(c.getHighCardinalityKeyValue(key))
        .map(KeyValue::getValue)
        .orElse("");
  }

  @Test
  void aServedRequest_isOneObservation_withAChildPerPhase_andTheGenAiAndMeshAttributes()
      throws Exception {
    ServeFixture f = new ServeFixture(new StewardObservations(registry));
    ServeResult r = f.steward.serve(ServeFixture.generation("tiny", 6), PROMPT);

    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo(StewardObservations.SERVE, 1)
        .hasNumberOfObservationsWithNameEqualTo(StewardObservations.PHASE, 4);
    Observation.Context serve = stopped.named(StewardObservations.SERVE).getFirst();
    assertThat(serve).isInstanceOf(ServeContext.class);
    assertThat(serve.getContextualName()).isEqualTo("chat tiny");
    assertThat(low(serve, "gen_ai.operation.name")).isEqualTo("chat");
    assertThat(high(serve, "gen_ai.request.model")).isEqualTo("tiny");
    assertThat(low(serve, "gen_ai.response.model")).isEqualTo("tiny");
    assertThat(high(serve, "gen_ai.usage.input_tokens"))
        .isEqualTo(Long.toString(r.receipt().counters().tokensIn()));
    assertThat(high(serve, "gen_ai.usage.output_tokens"))
        .isEqualTo(Long.toString(r.receipt().counters().tokensOut()));
    assertThat(low(serve, "mesh.outcome")).isEqualTo("served");
    assertThat(low(serve, "mesh.energy.provenance")).isEqualTo("Estimator");
    assertThat(high(serve, "mesh.energy.uj")).isEqualTo(Long.toString(r.receipt().energy().uj()));
    assertThat(high(serve, "mesh.receipt.id")).isEqualTo(r.envelope().id().hex());
    assertThat(high(serve, "mesh.receipt.sequence")).isEqualTo("0");
    assertThat(serve.getError()).isNull();

    List<Observation.Context> phases = stopped.named(StewardObservations.PHASE);
    assertThat(phases.stream().map(p -> low(p, "mesh.phase")))
        .containsExactly("route", "authorise", "meter", "seal");
    for (Observation.Context p : phases) {
      assertThat(p.getParentObservation()).isNotNull();
      assertThat(p.getParentObservation().getContextView().getName())
          .isEqualTo(StewardObservations.SERVE);
    }
    // The serve stops after its last phase, and nothing stays in scope on the thread.
    assertThat(stopped.contexts.getLast()).isSameAs(serve);
    assertThat(registry.getCurrentObservation()).isNull();
  }

  @Test
  void aRefusedGrant_endsItsPhaseAndTheServeInError_withReasonAndDenialLabel() throws Exception {
    ServeFixture f = new ServeFixture(new StewardObservations(registry));
    GrantChain chain = f.grant(1_000_000);
    ServeRequest r = ServeFixture.generation("tiny", 4);
    Presentation once = f.present(chain, r);
    f.steward.serve(r, PROMPT, once);
    stopped.contexts.clear();
    ServeException e =
        catchThrowableOfType(ServeException.class, () -> f.steward.serve(r, PROMPT, once));

    Observation.Context serve = stopped.named(StewardObservations.SERVE).getFirst();
    assertThat(low(serve, "mesh.outcome")).isEqualTo("refused");
    assertThat(low(serve, "mesh.refusal.reason")).isEqualTo("grant_refused");
    assertThat(low(serve, "mesh.denial_label")).isEqualTo("presentation-spent");
    assertThat(low(serve, "gen_ai.response.model")).isEqualTo("none");
    assertThat(serve.getError()).isSameAs(e);
    Map<String, Throwable> phaseErrors =
        stopped.named(StewardObservations.PHASE).stream()
            .filter(p -> p.getError() != null)
            .collect(Collectors.toMap(p -> low(p, "mesh.phase"), Observation.Context::getError));
    assertThat(phaseErrors).containsOnlyKeys("authorise");
    assertThat(registry.getCurrentObservation()).isNull();
  }

  @Test
  void aDecision_isNamedDecision() throws Exception {
    ServeFixture f = new ServeFixture(new StewardObservations(registry));
    f.steward.serve(ServeFixture.decision("big"), PROMPT, ServeFixture.QUESTIONS);
    Observation.Context serve = stopped.named(StewardObservations.SERVE).getFirst();
    assertThat(low(serve, "gen_ai.operation.name")).isEqualTo("decision");
    assertThat(low(serve, "gen_ai.response.model")).isEqualTo("big");
  }

  @Test
  void aServeWithinAReceivedRequest_isItsChild() throws Exception {
    StewardObservations observations = new StewardObservations(registry);
    ServeFixture f = new ServeFixture(observations);
    try (StewardObservations.Received received =
        observations.received("POST", h -> h.equals("traceparent") ? "00-x-y-01" : null)) {
      f.steward.serve(ServeFixture.generation("tiny", 2), PROMPT);
      received.status(200);
    }
    Observation.Context serve = stopped.named(StewardObservations.SERVE).getFirst();
    assertThat(serve.getParentObservation()).isNotNull();
    assertThat(serve.getParentObservation().getContextView().getName())
        .isEqualTo(StewardObservations.REQUEST);
    Observation.Context request = stopped.named(StewardObservations.REQUEST).getFirst();
    assertThat(low(request, "http.response.status_code")).isEqualTo("200");
    assertThat(registry.getCurrentObservation()).isNull();
  }
}
