package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A chat stream whose upstream sends a delta and then stops sending: the client has been handed the
 * delta, so the answer is the 200 stream it already started, the delta, then an error event naming
 * the failure, not a plain error reply that hides what was handed out. (Held on session 29's code:
 * the delta is sent as it arrives, nothing holds it back.)
 */
class UpstreamStallMidStreamTest {
  @Test
  void aDeltaThenAStall_isAStreamWithTheDelta_thenAnErrorEvent() throws Exception {
    CountDownLatch over = new CountDownLatch(1);
    ScriptedUpstream.Script stalls = UpstreamStreamStallTest.deltaThenStall(over);
    try (ScriptedUpstream up = new ScriptedUpstream(stalls)) {
      try (Fixture f =
          new Fixture(
              null,
              b -> b.backend(UpstreamStreamStallTest.remote(up.base(), Duration.ofSeconds(1))),
              b -> {})) {
        ObjectNode body = Fixture.chat("Wait for me.");
        body.put("model", "remote");
        body.put("stream", true);
        Fixture.Answer a = f.post("/v1/chat/completions", body);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        List<String> data = a.data();
        assertThat(data).as(a.body()).hasSize(3);
        assertThat(Fixture.JSON.readTree(data.get(1)).at("/choices/0/delta/content").asText())
            .isEqualTo("ab");
        assertThat(Fixture.JSON.readTree(data.get(2)).at("/error/code").asText())
            .isEqualTo("engine_failed");
      } finally {
        // Before the upstream stops, whose stop otherwise waited seconds for the stalled reply.
        over.countDown();
      }
    }
  }
}
