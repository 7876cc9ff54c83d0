package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An upstream's failure lines, with a clock the test moves: at most one line per interval, and no
 * failure lost from the count.
 */
class FailureLogLimitTest {
  private static final Instant T0 = Instant.parse("2026-12-05T12:00:00Z");

  /** A clock that stands still until the test moves it. */
  static final class Clock implements InstantSource {
    private Instant now = T0;

    @Override
    public Instant instant() {
      return now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }
  }

  private final Clock clock = new Clock();
  private final FailureLogLimit limit = new FailureLogLimit(Duration.ofMinutes(1), clock);

  /**
   * Regression: every failed exchange with an upstream logged a WARN line, so an outage (or a
   * client able to make the upstream fail) wrote to the operator's log at the rate requests came.
   */
  @Test
  void anOutage_logsItsFirstFailureWhole_thenOneLinePerIntervalCarryingTheCount() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      limit.failed("refused " + i).ifPresent(lines::add);
      clock.advance(Duration.ofMillis(10)); // 100 failures a second for 10 s
    }
    assertThat(lines).containsExactly("refused 0");

    clock.advance(Duration.ofMinutes(1));
    assertThat(limit.failed("refused 1000"))
        .contains(
            "refused 1000; before it, 999 failures not logged since "
                + T0
                + " (the first: refused 1; the last: refused 999)");
    assertThat(limit.failed("refused 1001")).isEmpty();
  }

  /**
   * An upstream's refusal body reaches the log through here: a line end only some readers break on
   * (NEL, U+2028) or a terminal escape in it is not written to the operator's log as it is.
   */
  @Test
  void anUpstreamsWords_areLoggedAsOneSafeLine() {
    assertThat(limit.failed("400 {\"error\":\"a\u2028b\u0085c\u001b[2J\u202ed\"}"))
        .contains("400 {\"error\":\"a b c<U+001B>[2J<U+202E>d\"}");
  }

  @Test
  void aFailureAfterAQuietInterval_isLoggedAtOnce() {
    assertThat(limit.failed("a")).contains("a");
    clock.advance(Duration.ofSeconds(61));
    assertThat(limit.failed("b")).contains("b");
  }

  @Test
  void theUpstreamAnsweringAgain_saysSoWithTheCount_onceTheIntervalHasPassed() {
    limit.failed("down");
    clock.advance(Duration.ofSeconds(1));
    limit.failed("still down");
    assertThat(limit.answered(200)).as("within the interval: still counted").isEmpty();
    clock.advance(Duration.ofMinutes(1));
    assertThat(limit.answered(200))
        .contains("answered again; 1 failure not logged since " + T0 + " (the first: still down)");
    assertThat(limit.answered(200)).as("nothing left to say").isEmpty();
  }

  /**
   * An upstream answering 5xx through an outage still fails every serve: only a served reply says
   * it answers again, or the log would say the outage ended while it went on.
   */
  @Test
  void anErrorStatus_isNotAnsweringAgain_theCountWaitsForAServedReply() {
    limit.failed("down");
    clock.advance(Duration.ofSeconds(1));
    limit.failed("still down");
    clock.advance(Duration.ofMinutes(2));
    for (int status : new int[] {500, 502, 503, 429, 404}) {
      assertThat(limit.answered(status)).as("HTTP " + status).isEmpty();
    }
    assertThat(limit.answered(200))
        .contains("answered again; 1 failure not logged since " + T0 + " (the first: still down)");
  }

  @Test
  void answersAlone_logNothing() {
    for (int i = 0; i < 5; i++) {
      assertThat(limit.answered(200)).isEmpty();
      clock.advance(Duration.ofMinutes(2));
    }
  }

  /**
   * An upstream that fails one client's requests and serves everyone else's must not log a failure
   * and a recovery per request: answers in between end nothing, so the interval still holds.
   */
  @Test
  void failuresBetweenAnswers_stillOneLinePerInterval() {
    int logged = 0;
    for (int i = 0; i < 600; i++) {
      logged += count(limit.failed("refused"));
      logged += count(limit.answered(200));
      clock.advance(Duration.ofMillis(500)); // five minutes in all
    }
    assertThat(logged).isBetween(5, 6);
  }

  @Test
  void anIntervalThatIsNotPositive_isRefused() {
    assertThatThrownBy(() -> new FailureLogLimit(Duration.ZERO, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval must be positive");
  }

  private static int count(Optional<String> line) {
    return line.isPresent() ? 1 : 0;
  }
}
