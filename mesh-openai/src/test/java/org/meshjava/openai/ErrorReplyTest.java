package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** OpenAI's error shape as the binding writes it (SPEC.md section 70, Errors). */
class ErrorReplyTest {

  private static String message(String m) {
    return ErrorReply.body("server_error", "x", m, Optional.empty())
        .get("error")
        .get("message")
        .asText();
  }

  @Test
  void aMessage_isOneLineOfAtMost1000Characters_thenCutWithAnEllipsis() {
    String limit = "m".repeat(1000);
    assertThat(message(limit)).isEqualTo(limit);
    assertThat(message(limit + "n")).isEqualTo(limit + "…");
    assertThat(message(" a\r\nb\nc ")).isEqualTo("a b c");
  }

  /** Our own bug: never shown, never to be resent on its own (the resend could be served twice). */
  @Test
  void anInternalError_is500_namesTheRequestToLookFor_andSaysNotToResend() {
    Reply.Json r = ErrorReply.internalError("req-7");

    assertThat(r.status()).isEqualTo(500);
    assertThat(r.retry()).isEqualTo(Reply.Retry.FUTILE);
    JsonNode e = r.body().get("error");
    assertThat(e.get("type").asText()).isEqualTo("server_error");
    assertThat(e.get("code").asText()).isEqualTo("internal_error");
    assertThat(e.get("param").isNull()).isTrue();
    assertThat(e.get("message").asText()).contains("req-7");
  }
}
