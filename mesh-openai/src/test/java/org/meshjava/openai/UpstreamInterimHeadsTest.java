package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * Interim ({@code 1xx}) heads before a streamed reply, which Jetty's client reads. A client must
 * take any number of them before the final head, expected or not (RFC 9110 §15.2), and the whole
 * reply's client skips up to {@link KeepAliveHttp#MAX_INTERIM_HEADS}. The stream's client took an
 * unasked {@code 100 Continue} or a {@code 1xx} it had no handler for as the reply itself (the
 * serve failed "the upstream answered HTTP 100"), and skipped 102 and 103 without a count, up to
 * the timeout. Now the stream's client skips any interim head but 101, and fails past the same
 * count.
 */
class UpstreamInterimHeadsTest {
  private static final String EVENTS =
      UpstreamCutWordsTest.DELTA
          + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n"
          + "data: [DONE]\n\n";

  @Test
  void aFewInterimHeadsOfAnyKind_beforeAStream_areSkipped() throws Exception {
    for (String interim :
        new String[] {"100 Continue", "102 Processing", "103 Early Hints", "199 Whatever"}) {
      try (RawUpstream up =
          new RawUpstream(
              out -> {
                for (int i = 0; i < KeepAliveHttp.MAX_INTERIM_HEADS; i++) {
                  out.write(bytes("HTTP/1.1 " + interim + "\r\n\r\n"));
                }
                out.write(bytes(UpstreamCutWordsTest.HEAD));
                out.write(RawUpstream.chunk(EVENTS));
                out.write(bytes("0\r\n\r\n"));
              })) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
        assertThat(
                Fixture.remote(up.base())
                    .serve(asked.request(), asked.payload(), t -> true)
                    .outcome()
                    .tokensOut())
            .as(interim)
            .isEqualTo(1);
      }
    }
  }

  @Test
  void interimHeadsWithoutEnd_beforeAStream_failTheExchangeAtTheBound_sayingSo() throws Exception {
    for (String interim : new String[] {"103 Early Hints", "100 Continue", "150 Odd"}) {
      try (RawUpstream up =
          new RawUpstream(
              out -> {
                while (true) {
                  out.write(bytes("HTTP/1.1 " + interim + "\r\nLink: </a>\r\n\r\n"));
                  out.flush();
                  Thread.sleep(20);
                }
              })) {
        // A timeout far past the heads' bound: the bound ends the exchange, not the timeout.
        UpstreamEngine engine =
            Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(60)).build();
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
        assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), t -> true))
            .as(interim)
            .isInstanceOf(EngineException.class)
            .hasMessageContaining(
                "the upstream sent more than "
                    + KeepAliveHttp.MAX_INTERIM_HEADS
                    + " interim (1xx) heads");
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
