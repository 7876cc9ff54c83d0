package org.meshjava.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.metrics.ServeFixture.PROMPT;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.meshjava.steward.ServeResult;

/**
 * With a tracer bridged in (Micrometer Tracing over the OpenTelemetry SDK, test scope only), a
 * serve inside {@link StewardObservations#received} joins the trace its W3C {@code traceparent}
 * names: the request's span is the remote parent's child, the serve's span its child, and each
 * phase's span the serve's; spans land in an in-memory exporter.
 */
class TraceparentTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT_SPAN = "00f067aa0ba902b7";

  @Test
  void aServe_joinsTheTraceOfTheIncomingTraceparent() throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    io.opentelemetry.api.trace.Tracer otel = provider.get("mesh-test");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    OtelTracer tracer =
        new OtelTracer(
            otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator =
        new OtelPropagator(
            ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
    ObservationRegistry registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    StewardObservations observations = new StewardObservations(registry);
    ServeFixture f = new ServeFixture(observations);
    Map<String, String> headers =
        Map.of("traceparent", "00-" + TRACE_ID + "-" + PARENT_SPAN + "-01");

    ServeResult r;
    try (StewardObservations.Received received = observations.received("POST", headers::get)) {
      r = f.steward.serve(ServeFixture.generation("tiny", 3), PROMPT);
      received.status(200);
    }
    provider.forceFlush();

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(TRACE_ID));
    SpanData request = only(spans, StewardObservations.REQUEST);
    SpanData serve = only(spans, "chat tiny");
    assertThat(request.getParentSpanId()).isEqualTo(PARENT_SPAN);
    assertThat(serve.getParentSpanId()).isEqualTo(request.getSpanId());
    assertThat(serve.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")))
        .isEqualTo("chat");
    assertThat(serve.getAttributes().get(AttributeKey.stringKey("mesh.receipt.id")))
        .isEqualTo(r.envelope().id().hex());
    for (String phase : List.of("route", "authorise", "meter", "seal")) {
      assertThat(only(spans, phase).getParentSpanId()).as(phase).isEqualTo(serve.getSpanId());
    }
  }

  private static SpanData only(List<SpanData> spans, String name) {
    List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s among %s", name, spans).hasSize(1);
    return named.getFirst();
  }
}
