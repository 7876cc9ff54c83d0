package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An upstream whose filter cuts a streamed answer after text went out: the client holds the text
 * already handed to it, once, then an error event naming the reason; the text of the event that
 * carries the filter's reason is not served, and no {@code [DONE]} says the answer ended well.
 */
class UpstreamFilteredMidStreamTest {
  @Test
  void aFilterAfterADelta_isTheDeltaOnce_thenAnErrorEventNamingIt() throws Exception {
    ScriptedUpstream.Script filtering =
        UpstreamWireTest.answering(
            200,
            "",
            UpstreamChoicesTest.event("\"index\":0,", "ab", ""),
            UpstreamChoicesTest.event(
                "\"index\":0,", "cd", ",\"finish_reason\":\"content_filter\""),
            UpstreamChoicesTest.USAGE_EVENT,
            "data: [DONE]\n\n");
    try (ScriptedUpstream up = new ScriptedUpstream(filtering);
        Fixture f =
            new Fixture(
                null,
                b -> b.backend(UpstreamStreamStallTest.remote(up.base(), Duration.ofSeconds(5))),
                b -> {})) {
      ObjectNode body = Fixture.chat("Filter me.");
      body.put("model", "remote");
      body.put("stream", true);
      Fixture.Answer a = f.post("/v1/chat/completions", body);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      List<String> data = a.data();
      assertThat(data).as(a.body()).doesNotContain("[DONE]");
      StringBuilder served = new StringBuilder();
      for (String d : data.subList(0, data.size() - 1)) {
        served.append(Fixture.JSON.readTree(d).at("/choices/0/delta/content").asText());
      }
      assertThat(served.toString()).as(a.body()).isEqualTo("ab");
      var error = Fixture.JSON.readTree(data.getLast()).path("error");
      assertThat(error.path("code").asText()).as(a.body()).isEqualTo("engine_failed");
      assertThat(error.path("message").asText()).as(a.body()).contains("content_filter");
    }
  }
}
