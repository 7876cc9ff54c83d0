package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What an upstream is told about this server in a request's head: the same whole and streamed. The
 * streamed request (Jetty's client) sent {@code User-Agent: Jetty/<version>} and the whole one
 * (KeepAliveHttp) none; neither sends one now, as the server names no version to its own clients.
 */
class UpstreamRequestHeadTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  @Test
  void noUserAgent_isSent_wholeOrStreamed() throws Exception {
    byte[] whole = ScriptedUpstream.reply("abc", "stop", USAGE).getBytes(StandardCharsets.UTF_8);
    String events =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n"
            + "data: {\"choices\":[],\"usage\":"
            + USAGE
            + "}\n\ndata: [DONE]\n\n";
    byte[] stream = events.getBytes(StandardCharsets.UTF_8);
    try (RawUpstream up =
            new RawUpstream(
                out -> {
                  out.write(
                      ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                              + whole.length
                              + "\r\nConnection: close\r\n\r\n")
                          .getBytes(StandardCharsets.US_ASCII));
                  out.write(whole);
                });
        RawUpstream streaming =
            new RawUpstream(
                out -> {
                  out.write(
                      ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                              + stream.length
                              + "\r\nConnection: close\r\n\r\n")
                          .getBytes(StandardCharsets.US_ASCII));
                  out.write(stream);
                })) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Head.", 8);
      Fixture.remote(up.base()).serve(asked.request(), asked.payload());
      Fixture.remote(streaming.base()).serve(asked.request(), asked.payload(), t -> true);
      assertThat(up.heads.getFirst().toLowerCase(Locale.ROOT)).doesNotContain("user-agent");
      assertThat(streaming.heads.getFirst().toLowerCase(Locale.ROOT))
          .contains("accept-encoding: identity")
          .doesNotContain("user-agent");
    }
  }
}
