package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.meshjava.core.internal.WellFormedText;

/**
 * What an upstream said in a refusal reaches the operator's log bounded to 200 characters by
 * OperatorText's rule (SPEC.md 70, "An upstream's refusal"): a line end Java's {@code \s} does not
 * match (U+2028, NEL) is a space, a format character is named, and the cut falls between code
 * points and outside a name.
 */
class UpstreamRefusalWordsTest {

  private static String refusalSaying(String said) throws Exception {
    byte[] body = said.getBytes(StandardCharsets.UTF_8);
    try (RawUpstream up =
        new RawUpstream(
            out -> {
              out.write(
                  ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: "
                          + body.length
                          + "\r\nConnection: close\r\n\r\n")
                      .getBytes(StandardCharsets.US_ASCII));
              out.write(body);
            })) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Words.", 8);
      UpstreamRefusedException e =
          catchThrowableOfType(
              UpstreamRefusedException.class,
              () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true));
      return e.getMessage();
    }
  }

  @Test
  void aRefusalCutAt200Characters_neverSplitsASurrogatePair() throws Exception {
    String m = refusalSaying("a".repeat(199) + "\uD83D\uDE00" + "tail");

    assertThat(WellFormedText.unpairedSurrogate(m)).isEqualTo(-1);
    assertThat(m).endsWith(": " + "a".repeat(199) + "…");
  }

  @Test
  void aRefusalsLineEndsAndFormatCharacters_areSpacesAndNames() throws Exception {
    String m = refusalSaying("no\u2028such\u0085model\u202e here");

    assertThat(m).endsWith(": no such model<U+202E> here");
  }

  @Test
  void aRefusalCutAt200Characters_neverSplitsANamedCharacter() throws Exception {
    String m = refusalSaying("a".repeat(195) + "\u202e" + "tail");

    assertThat(m).endsWith(": " + "a".repeat(195) + "…");
  }
}
