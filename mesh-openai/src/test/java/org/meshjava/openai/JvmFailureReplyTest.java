package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;

/**
 * The JVM failing in an engine's work (an {@code OutOfMemoryError} the steward passes once the
 * serve is settled) is answered as every internal error is: {@code internal_error}, the request id
 * to look it up by in the log, no resend advised, and nothing of the Java class or its words.
 */
class JvmFailureReplyTest {

  /**
   * Regression: the reply was Jetty's {@code http_500} whose message was the throwable's toString,
   * "java.lang.OutOfMemoryError: Java heap space", and it advised nothing about resending.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void anEngineRunningOutOfMemory_isAnsweredAsAnInternalError(boolean stream) {
    try (Fixture f =
        new Fixture(
            SigningKey.generate(),
            b -> b.backend(ThrowingEngine.of(new OutOfMemoryError("Java heap space"))),
            b -> {})) {
      var body = Fixture.chat("boom");
      body.put("stream", stream);

      Fixture.Answer a = f.post("/v1/chat/completions", body);

      assertThat(a.status()).as(a.body()).isEqualTo(500);
      assertThat(a.json().at("/error/code").asText()).as(a.body()).isEqualTo("internal_error");
      assertThat(a.body()).doesNotContain("java.lang").doesNotContain("OutOfMemoryError");
      assertThat(a.body()).doesNotContain("heap space");
    }
  }

  /**
   * Regression: once a stream had sent text, the JVM failing in the engine cut it with no error
   * event (Jetty logged it at debug only), where a bug of ours met there ends it with one.
   */
  @Test
  void anEngineRunningOutOfMemoryMidStream_endsTheStreamWithAnInternalErrorEvent() {
    try (Fixture f =
        new Fixture(
            SigningKey.generate(), b -> b.backend(new OutOfMemoryAfterOneToken()), b -> {})) {
      var body = Fixture.chat("boom");
      body.put("model", "midway");
      body.put("stream", true);

      Fixture.Answer a = f.post("/v1/chat/completions", body);

      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.body()).contains("\"internal_error\"");
      assertThat(a.body()).doesNotContain("java.lang").doesNotContain("OutOfMemoryError");
      assertThat(f.steward.head().nextSequence()).isZero();
    }
  }

  /** The reference engine, which hands over one token and then runs out of memory. */
  private static final class OutOfMemoryAfterOneToken extends ForwardingEngine {
    OutOfMemoryAfterOneToken() {
      super(ReferenceEngine.builder().name("midway").build());
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink) {
      sink.accept('A');
      throw new OutOfMemoryError("Java heap space");
    }
  }
}
