package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.internal.WellFormedText;

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

  /**
   * A message may echo the request's {@code model} or an engine's words: a line end only some
   * readers break on (NEL, U+2028, U+2029), a terminal escape or a bidirectional override is not
   * passed on in the message as it is.
   */
  @Test
  void aMessage_echoingHostileCharacters_isOneSafeLine() {
    assertThat(message("model a\u2028b\u2029c\u0085d\u001b[2J\u202ee"))
        .isEqualTo("model a b c d<U+001B>[2J<U+202E>e");
  }

  /**
   * The cut at 1000 characters falls between code points: a pair cut in two would leave an unpaired
   * surrogate, which has no UTF-8 (a client's JSON reader gets a broken string, and Python's SDK
   * fails printing it).
   */
  @Test
  void aMessage_cutAt1000Characters_neverSplitsASurrogatePair() {
    String m = message("m".repeat(999) + "\uD83D\uDE00" + "x");

    assertThat(WellFormedText.unpairedSurrogate(m)).isEqualTo(-1);
    assertThat(m).isEqualTo("m".repeat(999) + "…");
  }

  /**
   * A refused character echoed near the cut is named {@code <U+202E>}; cut inside that name, the
   * message would end in {@code <U+20}, which reads as characters the request sent.
   */
  @Test
  void aMessage_cutAt1000Characters_neverSplitsANamedCharacter() {
    assertThat(message("m".repeat(995) + "\u202e" + "x".repeat(10)))
        .isEqualTo("m".repeat(995) + "…");
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
