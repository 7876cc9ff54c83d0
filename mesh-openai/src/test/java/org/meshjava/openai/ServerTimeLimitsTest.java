package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@link OpenAiServer.Builder} took any positive time limit, and the server counts them
 * in milliseconds and nanoseconds, where one near {@code Long.MAX_VALUE} seconds overflowed: a body
 * deadline so long answered every request 500 "long overflow", an idle timeout so long failed the
 * build in the JDK's words. Each setter now refuses a limit over ten years naming itself, and ten
 * years serve; so does an upstream's timeout. {@link OpenAiServer#drain} takes any grace: one of
 * centuries waits, rather than throwing or wrapping into the past and giving up at once.
 */
class ServerTimeLimitsTest {
  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);

  private static final List<Setter> SETTERS =
      List.of(
          new Setter("bodyDeadline", OpenAiServer.Builder::bodyDeadline),
          new Setter("headerDeadline", OpenAiServer.Builder::headerDeadline),
          new Setter("idleTimeout", OpenAiServer.Builder::idleTimeout),
          new Setter("writeTimeout", OpenAiServer.Builder::writeTimeout),
          new Setter("deliveryTimeout", OpenAiServer.Builder::deliveryTimeout));

  private record Setter(String name, BiConsumer<OpenAiServer.Builder, Duration> set) {}

  @Test
  void aTimeLimitOverTenYears_isRefusedNamingItsSetting_andTenYearsServe() {
    Duration most = OpenAiServer.Builder.MAX_TIME_LIMIT;
    assertThat(most).isEqualTo(Duration.ofDays(3650));
    try (Fixture f =
        new Fixture(
            null,
            s -> {},
            b -> {
              for (Setter s : SETTERS) {
                for (Duration over : List.of(HUGE, most.plusNanos(1))) {
                  assertThatThrownBy(() -> s.set().accept(b, over))
                      .as(s.name() + " " + over)
                      .isInstanceOf(IllegalArgumentException.class)
                      .hasMessageStartingWith(s.name() + " must be at most");
                }
              }
              b.bodyDeadline(most)
                  .headerDeadline(most)
                  .idleTimeout(most)
                  .writeTimeout(most.minusSeconds(1))
                  .deliveryTimeout(most);
            })) {
      Fixture.Answer served = f.post("/v1/chat/completions", Fixture.chat("hello"));
      assertThat(served.status()).as(served.body()).isEqualTo(200);
    }
  }

  /**
   * The same for an upstream's timeout: one of {@code Long.MAX_VALUE} seconds threw from every
   * serve, and one of {@code Long.MAX_VALUE} nanoseconds wrapped its deadline into the past, so
   * every exchange timed out at once.
   */
  @Test
  void anUpstreamTimeoutOverTenYears_isRefused() {
    for (Duration over : List.of(HUGE, Duration.ofNanos(Long.MAX_VALUE), Duration.ofDays(3651))) {
      assertThatThrownBy(() -> UpstreamEngine.builder().timeout(over))
          .as(over.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("timeout must be at most");
    }
    var unused = UpstreamEngine.builder().timeout(OpenAiServer.Builder.MAX_TIME_LIMIT);
  }

  @Test
  void drain_withAGraceOfCenturies_waitsForTheServeInFlight() throws Exception {
    // The first would throw from toNanos; the second fits a long but, added to the clock, wraps.
    for (Duration grace : List.of(HUGE, Duration.ofNanos(Long.MAX_VALUE))) {
      HeldEngine held = new HeldEngine(4, 1);
      try (Fixture f = new Fixture(null, b -> b.backend(held), b -> {})) {
        CompletableFuture<HttpResponse<String>> inFlight = f.chatAsync("slow");
        assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> drained =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return f.server.drain(grace);
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                });
        while (!f.get("/readyz").json().get("draining").asBoolean()) {
          Thread.sleep(10);
        }
        held.release.countDown();
        assertThat(inFlight.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(drained.get(20, TimeUnit.SECONDS)).as(grace.toString()).isTrue();
      }
    }
  }
}
