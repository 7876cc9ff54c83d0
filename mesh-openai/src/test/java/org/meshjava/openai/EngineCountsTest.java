package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;

/**
 * Issue 14 item 3 over HTTP: {@code max_tokens} 3,000,000,000 failed inside the engine after the
 * grant was debited its ceiling, and 2,147,483,647 threw OutOfMemoryError (a 500 with a stack
 * trace). Both are now refused while routing; an engine that throws an Error is a 502.
 */
class EngineCountsTest {
  @Test
  void maxTokens_beyondTheEnginesOutputLimit_isA422NamingTheLimit_acrossTheU32Range() {
    try (Fixture f = new Fixture()) {
      for (long maxTokens : new long[] {3_000_000_000L, Integer.MAX_VALUE, 0xFFFF_FFFFL}) {
        ObjectNode body = Fixture.chat("Write forever.");
        body.put("max_tokens", maxTokens);
        // A ceiling that covers the estimate, so that the limit is what refuses it.
        body.putObject("metadata").put("joule_ceiling_uj", Long.toString(Long.MAX_VALUE));
        JsonNode e = f.post("/v1/chat/completions", body).error(422, "no_admissible_backend");
        assertThat(e.get("candidates")).hasSize(2);
        for (JsonNode c : e.get("candidates")) {
          assertThat(c.get("reason").asText()).startsWith("over limit: max_tokens " + maxTokens);
        }
      }
      assertThat(f.post("/v1/chat/completions", Fixture.chat("ok")).status()).isEqualTo(200);
    }
  }

  @Test
  void engineThrowingAnError_isA502WithoutAStackTrace_andTheServerGoesOn() {
    for (Error error : new Error[] {new AssertionError("engine bug"), new StackOverflowError()}) {
      try (Fixture f =
          new Fixture(SigningKey.generate(), b -> b.backend(ThrowingEngine.of(error)), b -> {})) {
        JsonNode e =
            f.post("/v1/chat/completions", Fixture.chat("boom")).error(502, "engine_failed");
        assertThat(e.get("message").asText()).contains("thrower");
        assertThat(f.get("/v1/mesh/steward").status()).isEqualTo(200);
      }
    }
  }

  /**
   * The JVM failing in an engine's work (the heap gone) is not the backend failing: the steward
   * settles the serve and lets the error pass (its JvmFailure rule), so the answer is a server
   * error, not a 502 that blames the backend; without a stack trace, and the server goes on.
   */
  @Test
  void engineWorkRunningOutOfMemory_isAServerError_withoutAStackTrace_andTheServerGoesOn() {
    try (Fixture f =
        new Fixture(
            SigningKey.generate(),
            b -> b.backend(ThrowingEngine.of(new OutOfMemoryError("Java heap space"))),
            b -> {})) {
      Fixture.Answer a = f.post("/v1/chat/completions", Fixture.chat("boom"));
      assertThat(a.status()).as(a.body()).isEqualTo(500);
      assertThat(a.body()).doesNotContain("\tat ").doesNotContain("at org.");
      assertThat(f.get("/v1/mesh/steward").status()).isEqualTo(200);
      assertThat(f.steward.head().nextSequence()).isZero();
    }
  }

  /** Regression: the answer named the Java class an engine threw (java.lang.Illegal...). */
  @Test
  void engineFailure_isAnsweredWithWhatFailed_notWhichJavaClass() {
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.of(new IllegalStateException("connection refused"))),
            b -> {})) {
      String message =
          f.post("/v1/chat/completions", Fixture.chat("boom"))
              .error(502, "engine_failed")
              .get("message")
              .asText();
      // The engine's words are the operator's (SPEC.md 60.10): the client reads a reference.
      assertThat(message)
          .matches(
              "backend thrower failed: its own words are in the server's log, under reference"
                  + " [0-9a-f]{16}")
          .doesNotContain("connection refused", "java.lang");
    }
    try (Fixture f =
        new Fixture(
            null, b -> b.backend(ThrowingEngine.of(new IllegalStateException())), b -> {})) {
      assertThat(
              f.post("/v1/chat/completions", Fixture.chat("boom"))
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .contains("backend thrower failed: its own words are in the server's log")
          .doesNotContain("java.lang");
    }
    try (Fixture f =
        new Fixture(null, b -> b.backend(ThrowingEngine.of(new NullPointerException())), b -> {})) {
      assertThat(
              f.post("/v1/chat/completions", Fixture.chat("boom"))
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .contains("backend thrower failed: its own words are in the server's log")
          .doesNotContain("java.lang");
    }
  }

  /**
   * Regression: the binding cut "it threw <a class>, and " out of the steward's message text, so an
   * engine whose own words read so (an upstream's error quoted as it came) reached the client
   * altered. The client now reads the steward's words for clients ({@code ServeException#shown}):
   * the words the engine declared its client's, whatever they say.
   */
  @Test
  void anEnginesOwnWords_thatReadLikeTheOperatorsClassNaming_reachTheClientUnchanged() {
    String own = "it threw com.example.QuotaExceeded, and it gave no reason";
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.named("thrower", EngineException.toClient(own))),
            b -> {})) {
      assertThat(
              f.post("/v1/chat/completions", Fixture.chat("boom"))
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .endsWith("backend thrower failed: " + own);
    }
  }

  /**
   * Regression: an engine that threw when asked something outside its work (its energy domains) was
   * answered with the throw as Java prints it ("java.lang.IllegalStateException: no domains
   * today"); the client reads what the steward could not learn and a reference to the log, where
   * the engine's words are (SPEC.md 60.10).
   */
  @Test
  void anEngineThatThrowsWhenAsked_isAnsweredWithItsWords_notItsJavaClass() {
    ServingEngine asked =
        new ForwardingEngine(ThrowingEngine.of(new IllegalStateException("unused"))) {
          @Override
          public Set<EnergyDomain> domains() {
            throw new IllegalStateException("no domains today");
          }
        };
    try (Fixture f = new Fixture(null, b -> b.backend(asked), b -> {})) {
      assertThat(
              f.post("/v1/chat/completions", Fixture.chat("boom"))
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .matches(
              "backend thrower failed: it could not name its energy domains: its own words are in"
                  + " the server's log, under reference [0-9a-f]{16}")
          .doesNotContain("java.lang");
    }
  }
}
