package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * Regression: an upstream that answers 200 but whose every reply fails (here one that sends no
 * usage report, as one that ignores {@code stream_options} does) was counted as answering again as
 * soon as each 200 arrived, before its reply failed. So once a minute had passed, the next serve
 * logged INFO "answered again" and its own failure went uncounted in a WARN: through an outage that
 * never ended the operator read, once a minute, that the upstream was back. Only a reply served
 * whole now says so; the failures go on being logged at WARN, one line a minute.
 */
class UpstreamReplyFaultLogTest {
  private static final String NO_USAGE =
      "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}";

  @Test
  void aTwoHundredWhoseReplyFails_neverSaysTheUpstreamAnswersAgain() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread up = Thread.ofPlatform().daemon().start(() -> answerEach(listener));
      FailureLogLimitTest.Clock clock = new FailureLogLimitTest.Clock();
      UpstreamEngine engine =
          Fixture.remoteBuilder(URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/v1"))
              .failureClock(clock)
              .build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Count me.", 8);
      String log =
          Fixture.stderrOf(
              () -> {
                for (Duration before :
                    List.of(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(61))) {
                  clock.advance(before);
                  assertThat(catchThrowable(() -> engine.serve(asked.request(), asked.payload())))
                      .isInstanceOf(EngineException.class)
                      .hasMessageContaining("no usage report");
                }
              });
      listener.close();
      up.join(10_000);
      List<String> lines = log.lines().filter(l -> l.contains("upstream remote at")).toList();
      assertThat(lines).noneMatch(l -> l.contains("answered again"));
      assertThat(lines)
          .filteredOn(l -> l.contains("WARN") && l.contains("reply failed: the upstream sent no"))
          .hasSize(2)
          .last()
          .asString()
          .contains("before it, 1 failure not logged");
    }
  }

  /** Answers every request 200 with {@link #NO_USAGE}, one connection each, until closed. */
  private static void answerEach(ServerSocket listener) {
    while (!listener.isClosed()) {
      try (Socket s = listener.accept()) {
        UpstreamCutWordsTest.readRequest(s.getInputStream());
        OutputStream out = s.getOutputStream();
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    + "Content-Length: "
                    + NO_USAGE.length()
                    + "\r\n\r\n"
                    + NO_USAGE)
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (Exception e) {
        return;
      }
    }
  }
}
