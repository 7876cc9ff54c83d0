package org.meshjava.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.metrics.ServeFixture.PROMPT;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * {@link ServeTimers} makes the timers that {@link StewardObservations} makes through Micrometer's
 * meter handler: the same names, tags and counts, for the same serves.
 */
class ServeTimersTest {
  private final MeterRegistry viaObservations = new SimpleMeterRegistry();
  private final MeterRegistry direct = new SimpleMeterRegistry();
  private final StewardObservations observations;
  private final ServeTimers timers = new ServeTimers(direct);

  ServeTimersTest() {
    ObservationRegistry registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new DefaultMeterObservationHandler(
                viaObservations, DefaultMeterObservationHandler.IgnoredMeters.LONG_TASK_TIMER));
    observations = new StewardObservations(registry);
  }

  /** Each timer's id (name and sorted tags) and count. */
  private static Map<String, Long> timers(MeterRegistry registry) {
    Map<String, Long> counts = new TreeMap<>();
    for (Meter m : registry.getMeters()) {
      if (m instanceof Timer t) {
        counts.put(t.getId().getName() + t.getId().getTags(), t.count());
      }
    }
    return counts;
  }

  @Test
  void servedRefusedAndRequests_makeTheObservationHandlersTimers_withTheSameTagsAndCounts()
      throws Exception {
    ServeFixture f = new ServeFixture(observations, timers);
    for (int i = 0; i < 3; i++) {
      f.steward.serve(ServeFixture.generation("tiny", 2), PROMPT);
    }
    f.steward.serve(ServeFixture.decision("big"), PROMPT, ServeFixture.QUESTIONS);
    GrantChain chain = f.grant(1_000_000);
    ServeRequest r = ServeFixture.generation("tiny", 4);
    Presentation once = f.present(chain, r);
    f.steward.serve(r, PROMPT, once);
    catchThrowableOfType(ServeException.class, () -> f.steward.serve(r, PROMPT, once));
    catchThrowableOfType(
        ServeException.class, () -> f.steward.serve(ServeFixture.generation("nosuch", 2), PROMPT));
    for (int status : new int[] {200, 200, 429}) {
      try (StewardObservations.Received received = observations.received("POST", h -> null);
          ServeTimers.Request request = timers.request("POST")) {
        received.status(status);
        request.status(status);
      }
    }
    try (StewardObservations.Received received = observations.received("GET", h -> null);
        ServeTimers.Request request = timers.request("GET")) {
      // answered without a status: the tag stays "none"
    }

    Map<String, Long> expected = timers(viaObservations);
    assertThat(expected).hasSizeGreaterThan(8);
    assertThat(timers(direct)).isEqualTo(expected);
  }

  @Test
  void methodsAClientMakesUp_shareOneOtherTag_inBothBindings() {
    // The HTTP binding opens the request scope before its 501 for a method it does not know, so
    // every made-up method would otherwise be a new timer kept for the life of the process.
    for (int i = 0; i < 50; i++) {
      String method = "X" + i;
      try (StewardObservations.Received received = observations.received(method, h -> null);
          ServeTimers.Request request = timers.request(method)) {
        received.status(501);
        request.status(501);
      }
    }
    try (StewardObservations.Received received = observations.received("get", h -> null);
        ServeTimers.Request request = timers.request("get")) {
      received.status(501);
      request.status(501);
    }
    try (StewardObservations.Received received = observations.received("POST", h -> null);
        ServeTimers.Request request = timers.request("POST")) {
      received.status(200);
      request.status(200);
    }

    Map<String, Long> expected = timers(viaObservations);
    assertThat(expected)
        .containsOnlyKeys(
            StewardObservations.REQUEST
                + "[tag(error=none), tag(http.request.method=POST),"
                + " tag(http.response.status_code=200)]",
            StewardObservations.REQUEST
                + "[tag(error=none), tag(http.request.method=_OTHER),"
                + " tag(http.response.status_code=501)]");
    assertThat(timers(direct)).isEqualTo(expected);
  }

  @Test
  void aServeThatFailedInAPhase_makesTheObservationHandlersTimers() {
    // No engine here fails, so the steward's calls are made as it makes them for one that threw.
    ServeStarted started = new ServeStarted(ServeFixture.generation("tiny", 2), false, false);
    for (StewardListener l : new StewardListener[] {observations, timers}) {
      ServeObserver serve = l.serveStarted(started);
      serve.phase(ServePhase.ROUTE);
      serve.phase(ServePhase.METER);
      serve.failed(new IllegalStateException("the engine threw"));
    }

    Map<String, Long> expected = timers(viaObservations);
    assertThat(expected.keySet())
        .anyMatch(id -> id.contains("mesh.outcome=failed"))
        .anyMatch(id -> id.contains("error=IllegalStateException"));
    assertThat(timers(direct)).isEqualTo(expected);
  }
}
