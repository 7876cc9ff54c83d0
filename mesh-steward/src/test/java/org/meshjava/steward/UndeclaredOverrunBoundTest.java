package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.InMemoryJournal;

/**
 * An engine deadline on a backend that declares no bound ({@code maxConcurrentServes} and {@code
 * maxWaitingServes} left unbounded): each call past the deadline keeps running on its own thread,
 * so the backend is refused {@code BACKEND_BUSY} once {@link BackendSlots#UNDECLARED_OVERRUNS} of
 * them run, and served again once they return. {@link Steward#enginesRunningPastDeadline()} counts
 * them meanwhile.
 */
@Timeout(60)
class UndeclaredOverrunBoundTest {
  private final GrantFixture f = new GrantFixture();
  private final HungEngine hung = new HungEngine("hung");

  @AfterEach
  void release() {
    hung.release.countDown();
  }

  /**
   * Regression: nothing bounded the overrun calls on such a backend, so an engine that ignored
   * interrupts left one thread behind per serve, without end.
   */
  @Test
  void overrunCallsOnABackendWithoutBounds_areBounded_andItServesAgainOnceTheyReturn()
      throws Exception {
    try (Steward s =
        f.steward(new InMemoryJournal())
            .backend(hung)
            .engineDeadline(EngineDeadlineTest.DEADLINE)
            .closeGrace(java.time.Duration.ZERO)
            .build()) {
      for (int i = 0; i < BackendSlots.UNDECLARED_OVERRUNS; i++) {
        ServeRequest r = GrantFixture.request("hang " + i, 4, 70_000).withModel("hung");
        assertThatThrownBy(() -> s.serve(r, GrantFixture.payload(r)))
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      }
      ServeRequest more = GrantFixture.request("one more", 4, 70_000).withModel("hung");
      assertThatThrownBy(() -> s.serve(more, GrantFixture.payload(more)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY);
                assertThat(e.getMessage())
                    .contains("8 engine call(s) still running past the engine deadline");
              });
      assertThat(hung.entered).as("no engine call for the refused serve").hasValue(8);
      // Answered, each of them, and still running: what mesh serve reads before it closes a local
      // engine, since no server counts them in flight any more.
      assertThat(s.enginesRunningPastDeadline())
          .as("engine calls running past the deadline")
          .isEqualTo(8);

      // Another backend of the same steward is not held up.
      ServeRequest other = GrantFixture.request("other", 4, 70_000).withModel("ref");
      assertThat(s.serve(other, GrantFixture.payload(other)).receipt().backend()).isEqualTo("ref");

      hung.release.countDown();
      EngineDeadlineTest.joinEngineThreads();
      assertThat(s.enginesRunningPastDeadline()).as("once they returned").isZero();
      ServeRequest after = GrantFixture.request("after", 4, 70_000).withModel("hung");
      assertThat(s.serve(after, GrantFixture.payload(after)).receipt().backend()).isEqualTo("hung");
    }
  }
}
