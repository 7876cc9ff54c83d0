package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-reply cap ({@link UpstreamHttp#MAX_REPLY_BYTES}, 4 MiB) on each way an upstream's reply
 * is read: a whole reply from an {@code https} upstream (Jetty's client, which had no test of it)
 * and from a plain {@code http} one ({@link KeepAliveHttp}), and a stream (Jetty's client, either
 * scheme), framed by length, by chunks without end, or as events without end. Past the cap the
 * client is answered 502 {@code engine_failed} in our words and nothing is sealed; the reader stops
 * near the cap rather than reading on (the upstream is cut off, not drained); and the connection
 * the reply came on is not used again: the next request opens a new one, and is served.
 */
class UpstreamReplyCapTest {
  private static final int CAP = UpstreamHttp.MAX_REPLY_BYTES;

  /** What the replies without end write at most, unless the reader stops first. */
  private static final long ENDLESS = 64L << 20;

  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":1}";

  /** The failure of a whole reply past the cap. */
  private static final String LARGER = "the reply is larger than " + CAP + " bytes";

  /** The failure of a stream past its bound, for {@link Fixture#chat}'s 8 tokens. */
  private static final String LONGER =
      "longer than " + (CAP + 8L * UpstreamEngine.STREAM_BYTES_PER_TOKEN) + " bytes";

  @TempDir static Path tmp;
  private static Path store;
  private static Path ca;

  @BeforeAll
  static void certificate() throws Exception {
    store = SelfSignedTls.generate(tmp);
    ca = SelfSignedTls.pem(store, tmp.resolve("private-ca.pem"));
  }

  /** Bytes of a JSON string's padding, 64 KiB at a time. */
  private static final byte[] PAD = filled(64 << 10, 'x');

  private static byte[] filled(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private static void ascii(OutputStream out, String s) throws Exception {
    out.write(s.getBytes(StandardCharsets.US_ASCII));
  }

  /** 5 MiB of one JSON reply, framed by its Content-Length. */
  private static void fiveMiBByLength(OutputStream out, AtomicLong sent) throws Exception {
    int pads = 80; // 80 × 64 KiB = 5 MiB
    String open = "{\"pad\":\"";
    String close = "\"}";
    long length = open.length() + (long) pads * PAD.length + close.length();
    ascii(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + length
            + "\r\n\r\n"
            + open);
    for (int i = 0; i < pads; i++) {
      out.write(PAD);
      sent.addAndGet(PAD.length);
    }
    ascii(out, close);
  }

  /** A JSON reply in 64 KiB chunks, with no end before {@link #ENDLESS}. */
  private static void chunkedWithoutEnd(OutputStream out, AtomicLong sent) throws Exception {
    ascii(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "8\r\n{\"pad\":\"\r\n");
    byte[] chunk = RawUpstream.chunk(PAD);
    while (sent.get() < ENDLESS) {
      out.write(chunk);
      sent.addAndGet(chunk.length);
    }
  }

  /** A stream of 64 KiB comment lines (no content), with no end before {@link #ENDLESS}. */
  private static void streamWithoutEnd(OutputStream out, AtomicLong sent) throws Exception {
    ascii(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    byte[] line = filled(64 << 10, 'x');
    line[0] = ':';
    line[line.length - 1] = '\n';
    byte[] chunk = RawUpstream.chunk(line);
    while (sent.get() < ENDLESS) {
      out.write(chunk);
      sent.addAndGet(chunk.length);
    }
  }

  /** A good reply of the kind asked, framed by length, so that its connection may be kept. */
  private static void served(OutputStream out, boolean stream) throws Exception {
    String body =
        stream
            ? UpstreamCutWordsTest.DELTA
                + "data: {\"choices\":[],\"usage\":"
                + USAGE
                + "}\n\ndata: [DONE]\n\n"
            : ScriptedUpstream.reply("ab", "stop", USAGE);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ascii(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: "
            + (stream ? "text/event-stream" : "application/json")
            + "\r\nContent-Length: "
            + bytes.length
            + "\r\n\r\n");
    out.write(bytes);
  }

  /** How an over-long reply is written, counting the bytes of its body written. */
  private interface Over {
    void write(OutputStream out, AtomicLong sent) throws Exception;
  }

  /**
   * Sends a chat through a server whose one upstream (https if {@code tls}) answers the first
   * request as {@code over} writes and the next as it should; checks the refusal, how far the reply
   * was read, and that the next request came on a connection of its own.
   */
  private static void cappedThenServed(boolean tls, boolean stream, Over over, String words)
      throws Exception {
    AtomicLong sent = new AtomicLong();
    ServerSocket listener =
        tls
            ? SelfSignedTls.listen(store)
            : new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    try (RawUpstream up =
            RawUpstream.keptAlive(
                listener,
                (n, out) -> {
                  if (n == 0) {
                    over.write(out, sent);
                  } else {
                    served(out, stream);
                  }
                });
        Fixture front =
            new Fixture(
                null,
                b -> {
                  UpstreamEngine.Builder remote =
                      Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(20));
                  if (tls) {
                    remote.trustedCertificates(ca);
                  }
                  b.backend(remote.build());
                },
                b -> {})) {
      ObjectNode ask = Fixture.chat("Too much.");
      ask.put("model", "remote");
      if (stream) {
        ask.put("stream", true);
      }
      JsonNode error = front.post("/v1/chat/completions", ask).error(502, "engine_failed");
      assertThat(error.get("message").asText())
          .contains(words)
          .doesNotContain("127.0.0.1")
          .doesNotContain("Exception");
      assertThat(front.steward.head().nextSequence()).as("nothing sealed").isZero();
      assertThat(sent.get())
          .as("the reply's bytes written before the reader stopped")
          .isLessThan(ENDLESS / 2);

      Fixture.Answer next = front.post("/v1/chat/completions", ask);
      assertThat(next.status()).as(next.body()).isEqualTo(200);
      assertThat(next.body()).contains("ab");
      assertThat(up.connections.get())
          .as("the capped reply's connection is not used for the next request")
          .isEqualTo(2);
      assertThat(up.heads).hasSize(2);
    }
  }

  @Test
  void anHttpsWholeReplyOf5MiB_is502InOurWords_andItsConnectionIsNotUsedAgain() throws Exception {
    cappedThenServed(true, false, UpstreamReplyCapTest::fiveMiBByLength, LARGER);
  }

  @Test
  @Tag("slow")
  void anHttpsWholeReplyChunkedWithoutEnd_isCutNearTheCap_andItsConnectionIsNotUsedAgain()
      throws Exception {
    cappedThenServed(true, false, UpstreamReplyCapTest::chunkedWithoutEnd, LARGER);
  }

  @Test
  @Tag("slow")
  void anHttpsStreamWithoutEnd_isCutAtItsBound_andItsConnectionIsNotUsedAgain() throws Exception {
    cappedThenServed(true, true, UpstreamReplyCapTest::streamWithoutEnd, LONGER);
  }

  @Test
  void aPlainHttpWholeReplyOf5MiB_is502InOurWords_andItsConnectionIsNotUsedAgain()
      throws Exception {
    cappedThenServed(false, false, UpstreamReplyCapTest::fiveMiBByLength, LARGER);
  }

  @Test
  @Tag("slow")
  void aPlainHttpWholeReplyChunkedWithoutEnd_isCutNearTheCap_andItsConnectionIsNotUsedAgain()
      throws Exception {
    cappedThenServed(false, false, UpstreamReplyCapTest::chunkedWithoutEnd, LARGER);
  }
}
