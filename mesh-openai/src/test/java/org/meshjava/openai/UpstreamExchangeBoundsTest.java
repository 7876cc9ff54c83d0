package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * An upstream that keeps an exchange alive without ever finishing it: a stream trickling comment
 * lines or events without text, each arriving well within a read's idle timeout, or interim ({@code
 * 1xx}) heads sent without end. Either held the serve, its backend slot and a thread: the stream
 * until its byte bound, the heads until the exchange's deadline. A stream must bring content within
 * the upstream's timeout of the request and of each content delta (an honest slow stream longer
 * than the timeout is served whole), and a few interim heads are skipped, not any number.
 */
class UpstreamExchangeBoundsTest {
  private static final String STREAM_HEAD =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

  private static final String USAGE_AND_DONE =
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n"
          + "data: [DONE]\n\n";

  private static final String NO_CONTENT =
      "it sent no content within the timeout (comment lines and events without text do not count)";

  /** A comment line every 100 ms for 8 s, then a whole reply: a stream that ends, too slowly. */
  private static final Reply TRICKLE =
      out -> {
        out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 80; i++) {
          out.write(chunk(": still here\n\n"));
          out.flush();
          Thread.sleep(100);
        }
        out.write(chunk(UpstreamCutWordsTest.DELTA + USAGE_AND_DONE));
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      };

  @Test
  void aStreamTricklingComments_failsAtTheTimeout_notWhenItEnds() throws Exception {
    try (Upstream up = new Upstream(TRICKLE)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(2)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Trickle.", 8);
      String log =
          Fixture.stderrOf(
              () ->
                  assertThatThrownBy(
                          () -> engine.serve(asked.request(), asked.payload(), r -> true))
                      .isInstanceOf(EngineException.class)
                      .hasMessage("the upstream's stream failed: " + NO_CONTENT));
      assertThat(log.lines())
          .anyMatch(l -> l.contains("WARN") && l.contains("reply failed: the upstream's stream"));
    }
  }

  @Test
  void aStreamOfEventsWithoutText_failsAtTheTimeout() throws Exception {
    String empty = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n";
    Reply emptyEvents =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          for (int i = 0; i < 80; i++) {
            out.write(chunk(empty));
            out.flush();
            Thread.sleep(100);
          }
          out.write(chunk(UpstreamCutWordsTest.DELTA + USAGE_AND_DONE));
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        };
    try (Upstream up = new Upstream(emptyEvents)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(2)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Nothing.", 8);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), r -> true))
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream's stream failed: " + NO_CONTENT);
    }
  }

  @Test
  void anHonestSlowStream_longerThanTheTimeout_isServedWhole() throws Exception {
    Reply slow =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          for (int i = 0; i < 20; i++) {
            out.write(chunk(UpstreamCutWordsTest.DELTA));
            out.flush();
            Thread.sleep(500);
          }
          out.write(
              chunk(USAGE_AND_DONE.replace("\"completion_tokens\":1", "\"completion_tokens\":20")));
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        };
    try (Upstream up = new Upstream(slow)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(2)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Take your time.", 20);
      EngineResult served = engine.serve(asked.request(), asked.payload(), r -> true);
      // 20 deltas of "ab", 10 s in all, each within 2 s of the one before.
      assertThat(served.tokens().size()).isEqualTo(40);
      assertThat(served.outcome().tokensOut()).isEqualTo(20);
    }
  }

  @Test
  void aReasoningModelThinkingLongerThanTheTimeout_beforeItsAnswer_isServedWhole()
      throws Exception {
    String thought =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n";
    Reply thinking =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          // 6 s of thinking, a thought every 0.5 s, then the answer: longer than the 2 s timeout
          // before the first content delta, never 2 s without generated text.
          for (int i = 0; i < 12; i++) {
            out.write(chunk(thought));
            out.flush();
            Thread.sleep(500);
          }
          out.write(chunk(UpstreamCutWordsTest.DELTA));
          out.write(chunk(USAGE_AND_DONE));
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        };
    try (Upstream up = new Upstream(thinking)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(2)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Think first.", 20);
      EngineResult served = engine.serve(asked.request(), asked.payload(), r -> true);
      // Only the answer is served; the thoughts kept the stream alive.
      assertThat(served.tokens().size()).isEqualTo(2);
    }
  }

  @Test
  void aChatStreamOverATricklingUpstream_isAnsweredEngineFailed() throws Exception {
    try (Upstream up = new Upstream(TRICKLE);
        Fixture f =
            new Fixture(
                null,
                b ->
                    b.backend(
                        Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(1)).build()),
                b -> {})) {
      ObjectNode body = Fixture.chat("Trickle.");
      body.put("model", "remote");
      body.put("stream", true);
      // No text came before the deadline, so the failure is a whole error reply, not an event.
      assertThat(
              f.post("/v1/chat/completions", body)
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .contains(NO_CONTENT);
    }
  }

  @Test
  void interimHeadsWithoutEnd_failTheExchange_sayingSo() throws Exception {
    Reply flood =
        out -> {
          while (true) {
            out.write(
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(20);
          }
        };
    try (Upstream up = new Upstream(flood)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(5)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining(
              "the upstream sent more than "
                  + KeepAliveHttp.MAX_INTERIM_HEADS
                  + " interim (1xx) heads");
    }
  }

  @Test
  void aFewInterimHeads_areSkipped() throws Exception {
    String whole =
        ScriptedUpstream.reply("ok", "stop", "{\"prompt_tokens\":1,\"completion_tokens\":1}");
    Reply hinted =
        out -> {
          for (int i = 0; i < KeepAliveHttp.MAX_INTERIM_HEADS; i++) {
            out.write("HTTP/1.1 103 Early Hints\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          }
          out.write(
              ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                      + whole.length()
                      + "\r\nConnection: close\r\n\r\n"
                      + whole)
                  .getBytes(StandardCharsets.UTF_8));
        };
    try (Upstream up = new Upstream(hinted)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
      assertThat(engine.serve(asked.request(), asked.payload()).outcome().tokensOut()).isEqualTo(1);
    }
  }

  private static byte[] chunk(String data) {
    byte[] d = data.getBytes(StandardCharsets.UTF_8);
    byte[] size = (Integer.toHexString(d.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[size.length + d.length + 2];
    System.arraycopy(size, 0, out, 0, size.length);
    System.arraycopy(d, 0, out, size.length, d.length);
    out[out.length - 2] = '\r';
    out[out.length - 1] = '\n';
    return out;
  }

  /** What the upstream writes after reading a request. */
  private interface Reply {
    void write(OutputStream out) throws Exception;
  }

  /** A loopback upstream answering each connection, on its own thread, as {@code reply} says. */
  private static final class Upstream implements AutoCloseable {
    private final ServerSocket listener = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());

    Upstream(Reply reply) throws IOException {
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                while (!listener.isClosed()) {
                  try {
                    Socket s = listener.accept();
                    Thread.ofPlatform().daemon().start(() -> answer(s, reply));
                  } catch (IOException e) {
                    return;
                  }
                }
              });
    }

    private static void answer(Socket s, Reply reply) {
      try (s) {
        UpstreamCutWordsTest.readRequest(s.getInputStream());
        reply.write(s.getOutputStream());
        s.getOutputStream().flush();
      } catch (Exception e) {
        // The client gave up (the point of these tests): nothing more to send.
      }
    }

    URI base() {
      return URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/v1");
    }

    @Override
    public void close() throws IOException {
      listener.close();
    }
  }
}
