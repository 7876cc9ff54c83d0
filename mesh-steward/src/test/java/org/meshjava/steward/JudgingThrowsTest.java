package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;

/**
 * The operator's log of backends that threw while judged: WARN at most once per backend in each
 * {@link JudgingThrows#WARN_EVERY}, never only once for the life of the process.
 */
class JudgingThrowsTest {
  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 1_000);
  private final JudgingThrows log = new JudgingThrows(now::get);

  private static List<RouteCandidate> threw(String backend, String thrown) {
    return List.of(
        new RouteCandidate(
            backend,
            Fidelity.of(1),
            10,
            Optional.of(
                new Inadmissibility(
                    Inadmissibility.Kind.NOT_PERMITTED,
                    "not permitted: it failed while being judged",
                    Optional.of(thrown)))));
  }

  private String logged(List<RouteCandidate> candidates) throws Exception {
    return SnapshotterFailureWordsTest.logOf(() -> log.log(candidates));
  }

  /**
   * Regression: the WARN was once per backend for the life of the process, so a backend that threw
   * today, recovered and threw again next week was never said at WARN again.
   */
  @Test
  void aBackendThrowingAgainAfterTheInterval_isWarnedOfAgain() throws Exception {
    assertThat(logged(threw("broken", "java.io.IOException: /models/a.onnx")))
        .contains("WARN")
        .contains("backend broken failed while being judged, so it was passed over: ")
        .contains("/models/a.onnx");
    // Before the count wraps, while the last WARN plus the interval already has: a comparison of
    // nanoTime values rather than of their difference says WARN here.
    now.addAndGet(500);
    assertThat(logged(threw("broken", "java.io.IOException: /models/a2.onnx")))
        .as("just after the WARN, the count not yet wrapped: at debug")
        .doesNotContain("WARN");
    now.addAndGet(JudgingThrows.WARN_EVERY.toNanos() - 501); // across nanoTime's wrap
    assertThat(logged(threw("broken", "java.io.IOException: /models/b.onnx")))
        .as("within the interval: at debug")
        .doesNotContain("WARN");
    now.addAndGet(1);
    assertThat(logged(threw("broken", "java.io.IOException: /models/c.onnx")))
        .as("once the interval has passed: at WARN again")
        .contains("WARN")
        .contains("/models/c.onnx");
    assertThat(logged(threw("broken", "java.io.IOException: /models/d.onnx")))
        .doesNotContain("WARN");
  }

  /** Each backend has its own interval: one backend's WARN does not hush another's. */
  @Test
  void eachBackend_isWarnedOfOnItsOwn() throws Exception {
    assertThat(logged(threw("first", "x"))).contains("WARN").contains("backend first");
    assertThat(logged(threw("second", "y"))).contains("WARN").contains("backend second");
    assertThat(logged(threw("first", "z"))).doesNotContain("WARN");
  }

  /** A candidate refused by a rule threw nothing: nothing is logged for it. */
  @Test
  void aCandidateRefusedByARule_isNotLogged() throws Exception {
    RouteCandidate ruled =
        new RouteCandidate(
            "small",
            Fidelity.of(1),
            10,
            Optional.of(new Inadmissibility(Inadmissibility.Kind.OVER_CEILING, "over")));
    assertThat(logged(List.of(ruled))).isEmpty();
  }
}
