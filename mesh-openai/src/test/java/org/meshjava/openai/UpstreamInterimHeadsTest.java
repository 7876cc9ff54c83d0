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
        failsPastTheBound(up, true, interim);
      }
    }
  }

  /**
   * One head past the bound fails either client, whatever its kind: Jetty's own 100 Continue
   * handler took an exchange's first 100 (asked for or not), so the stream's client skipped nine.
   */
  @Test
  void oneInterimHeadPastTheBound_failsWholeAndStreamed_whateverItsKind() throws Exception {
    for (String interim : new String[] {"100 Continue", "102 Processing", "199 Whatever"}) {
      for (boolean streamed : new boolean[] {false, true}) {
        try (RawUpstream up =
            new RawUpstream(
                out -> {
                  for (int i = 0; i <= KeepAliveHttp.MAX_INTERIM_HEADS; i++) {
                    out.write(bytes("HTTP/1.1 " + interim + "\r\n\r\n"));
                  }
                  reply(out, streamed);
                })) {
          failsPastTheBound(up, streamed, interim + (streamed ? ", streamed" : ", whole"));
        }
      }
    }
  }

  /**
   * A 101 switches the connection away from HTTP; no request here asks for it, so it is a reply
   * refused, at once, by either client. The whole reply's client skipped it as an interim head and
   * read what followed as HTTP: a reply after it was served, and silence after it held the serve to
   * its timeout.
   */
  @Test
  void a101_isRefusedAtOnce_wholeAndStreamed() throws Exception {
    for (boolean replyAfter : new boolean[] {true, false}) {
      for (boolean streamed : new boolean[] {false, true}) {
        try (RawUpstream up =
            new RawUpstream(
                out -> {
                  out.write(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"));
                  if (replyAfter) {
                    reply(out, streamed);
                  } else {
                    out.flush();
                    Thread.sleep(60_000);
                  }
                })) {
          assertThatThrownBy(() -> serve(up, streamed))
              .as(
                  (replyAfter ? "a reply" : "nothing")
                      + " after it"
                      + (streamed ? ", streamed" : ""))
              .isInstanceOf(UpstreamRefusedException.class)
              .hasMessageStartingWith("the upstream answered HTTP 101");
        }
      }
    }
  }

  private static final String WHOLE =
      "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"ab\"}}],"
          + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";

  /** A whole reply or a stream, after whatever heads the test sent. */
  private static void reply(java.io.OutputStream out, boolean streamed) throws Exception {
    if (streamed) {
      out.write(bytes(UpstreamCutWordsTest.HEAD));
      out.write(RawUpstream.chunk(EVENTS));
      out.write(bytes("0\r\n\r\n"));
    } else {
      out.write(
          bytes(
              "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                  + WHOLE.length()
                  + "\r\n\r\n"
                  + WHOLE));
    }
  }

  private static void failsPastTheBound(RawUpstream up, boolean streamed, String as) {
    assertThatThrownBy(() -> serve(up, streamed))
        .as(as)
        .isInstanceOf(EngineException.class)
        .hasMessageContaining(
            "the upstream sent more than "
                + KeepAliveHttp.MAX_INTERIM_HEADS
                + " interim (1xx) heads");
  }

  /**
   * A serve over {@code up} under a timeout far past the heads' bound: the bound (or the refusal)
   * ends the exchange, not the timeout.
   */
  private static void serve(RawUpstream up, boolean streamed) throws Exception {
    UpstreamEngine engine =
        Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(60)).build();
    ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
    if (streamed) {
      var unused = engine.serve(asked.request(), asked.payload(), t -> true);
    } else {
      var unused = engine.serve(asked.request(), asked.payload());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
