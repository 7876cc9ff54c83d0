package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.Fidelity;

/**
 * An upstream whose event stream stops sending after a first delta fails the serve at the engine's
 * timeout, with a message the client may read: it says the timeout passed, and names no Java class.
 * (A stream stalled right after its head may instead fail waiting for that head, which
 * UpstreamHttp.stream words itself.)
 */
class UpstreamStreamStallTest {
  @Test
  void streamStalledAfterADelta_failsSayingTheTimeoutPassed_namingNoJavaClass() throws Exception {
    CountDownLatch over = new CountDownLatch(1);
    ScriptedUpstream.Script stalls = deltaThenStall(over);
    try (ScriptedUpstream up = new ScriptedUpstream(stalls)) {
      try {
        UpstreamEngine engine = remote(up.base(), Duration.ofSeconds(2));
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Wait for me.", 8);
        assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), token -> true))
            .isInstanceOf(EngineException.class)
            .hasMessage("the upstream's stream failed: nothing arrived within the timeout");
      } finally {
        // Before the upstream stops, whose stop otherwise waited seconds for the stalled reply.
        over.countDown();
      }
    }
  }

  /**
   * An upstream engine "remote" at {@code base} (F0, 1 µJ a token) giving up after {@code timeout}.
   */
  static UpstreamEngine remote(java.net.URI base, Duration timeout) {
    return UpstreamEngine.builder()
        .name("remote")
        .baseUri(base)
        .model("m")
        .fidelity(Fidelity.F0)
        .costProfile(CostProfile.perToken(1))
        .timeout(timeout)
        .build();
  }

  /**
   * An upstream that streams one delta, "ab", then sends nothing until {@code over} is counted
   * down.
   */
  static ScriptedUpstream.Script deltaThenStall(CountDownLatch over) {
    return new ScriptedUpstream.Script() {
      @Override
      public void stream(JsonNode body, OutputStream out) throws Exception {
        out.write(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]}\n\n"
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
        over.await();
      }

      @Override
      public String whole(JsonNode body) {
        throw new UnsupportedOperationException("only streams are asked for");
      }
    };
  }
}
