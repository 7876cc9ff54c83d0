package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.EngineException;

/**
 * A streamed upstream reply is read within bounds: an upstream that sends one endless line, or
 * endless keep-alive comments, fails the serve once over the bound instead of filling the heap or
 * holding the serve for ever.
 */
// Without the bounds the keep-alive case never ends and its thread ignores interrupts.
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UpstreamStreamBoundsTest {
  /** Answers one request with a 200 event stream: {@code head}, then {@code filler} for ever. */
  private static final class EndlessUpstream implements AutoCloseable {
    final ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    final AtomicLong sent = new AtomicLong();
    final Thread thread;

    EndlessUpstream(String head, String filler) throws IOException {
      byte[] more = filler.repeat(1024).getBytes(StandardCharsets.US_ASCII);
      thread =
          new Thread(
              () -> {
                try (Socket s = socket.accept()) {
                  InputStream in = s.getInputStream();
                  // The request's head; its body is small and is left unread.
                  for (int ends = 0; ends < 4; ) {
                    int b = in.read();
                    ends = b == -1 ? 4 : (b == '\r' || b == '\n') ? ends + 1 : 0;
                  }
                  OutputStream out = s.getOutputStream();
                  out.write(
                      ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + head)
                          .getBytes(StandardCharsets.US_ASCII));
                  while (true) {
                    out.write(more);
                    sent.addAndGet(more.length);
                  }
                } catch (IOException closedByTheClient) {
                  // The serve stopped reading: what the test wants.
                }
              });
      thread.setDaemon(true);
      thread.start();
    }

    URI base() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/v1");
    }

    @Override
    public void close() throws Exception {
      socket.close();
      thread.join(10_000);
    }
  }

  private static void assertStreamFails(EndlessUpstream up, String message) throws Exception {
    UpstreamEngine engine = Fixture.remote(up.base());
    ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Count me.", 16);
    assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), token -> true))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining(message);
    up.thread.join(10_000);
    assertThat(up.thread.isAlive()).as("the upstream was cut off").isFalse();
  }

  @Test
  void anEndlessLine_failsTheServe_atTheLineBound() throws Exception {
    try (EndlessUpstream up =
        new EndlessUpstream("data: {\"choices\":[{\"delta\":{\"content\":\"", "aaaaaaaa")) {
      assertStreamFails(up, "longer than " + UpstreamEngine.MAX_EVENT_LINE_BYTES + " bytes");
      // Cut off near the bound, not after the upstream's whole (endless) reply.
      assertThat(up.sent.get()).isLessThan(UpstreamEngine.MAX_EVENT_LINE_BYTES * 8L);
    }
  }

  /**
   * Header lines past the head's bound, then a whole stream: Jetty's client, which reads every
   * streamed reply, read a head without bound (64 MiB of header lines and the stream after them
   * were served), so an upstream sending header lines without end filled the heap until the
   * timeout. It stops at the bound the plain client keeps (64 KiB), and the upstream is cut off.
   */
  @Test
  void headerLinesPastTheHeadBound_failTheServe_andCutTheUpstreamOff() throws Exception {
    byte[] lines =
        "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaa\r\n".repeat(2048).getBytes(StandardCharsets.US_ASCII);
    AtomicLong sent = new AtomicLong();
    RawUpstream.Reply padded =
        out -> {
          out.write(
              "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
          // 32 MiB of header lines, unless the reader stops first.
          while (sent.get() < (32 << 20)) {
            out.write(lines);
            sent.addAndGet(lines.length);
          }
          out.write(
              ("Connection: close\r\n\r\n"
                      + UpstreamCutWordsTest.DELTA
                      + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n"
                      + "data: [DONE]\n\n")
                  .getBytes(StandardCharsets.US_ASCII));
        };
    try (RawUpstream up = new RawUpstream(padded)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Pad.", 16);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), token -> true))
          .isInstanceOf(EngineException.class)
          // Jetty's parser fails it as no valid HTTP; where assertions run, with an AssertionError
          // of its own (a 200 is no error status), which reads as the exchange failing.
          .hasMessageStartingWith("calling the upstream: ");
      assertThat(sent.get()).as("cut off near the bound").isLessThan(32L << 20);
    }
  }

  @Test
  void endlessKeepAlives_failTheServe_atTheStreamBound() throws Exception {
    try (EndlessUpstream up = new EndlessUpstream("", ": keep-alive\n")) {
      long bound = UpstreamHttp.MAX_REPLY_BYTES + 16L * UpstreamEngine.STREAM_BYTES_PER_TOKEN;
      assertStreamFails(up, "longer than " + bound + " bytes");
      assertThat(up.sent.get()).isLessThan(bound * 4);
    }
  }
}
