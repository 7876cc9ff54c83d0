package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * The content coding of an upstream's reply. A request without {@code Accept-Encoding} accepts any
 * coding (RFC 9110 §12.5.3), so an upstream (or a proxy before it) could gzip its reply, which was
 * then read as a body that is not JSON; Jetty's client asked for gzip on a stream and decoded it,
 * but took deflate as raw bytes, and the stream "ended without a usage report". Both clients now
 * ask for {@code identity}, and a reply in any other coding fails in words that name it.
 */
class UpstreamContentCodingTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  private static final String EVENTS =
      UpstreamCutWordsTest.DELTA
          + "data: {\"choices\":[],\"usage\":"
          + USAGE
          + "}\n\n"
          + "data: [DONE]\n\n";

  @Test
  void aStreamedRequest_asksForTheIdentityCoding_notGzip() throws Exception {
    try (RawUpstream up = new RawUpstream(out -> writeStream(out, null, bytes(EVENTS)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Plain.", 8);
      Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
      assertThat(up.heads.getFirst().toLowerCase(java.util.Locale.ROOT))
          .contains("\r\naccept-encoding: identity\r\n")
          .doesNotContain("gzip");
    }
  }

  @Test
  void aWholeRequest_asksForTheIdentityCoding() throws Exception {
    byte[] whole = ScriptedUpstream.reply("ok", "stop", USAGE).getBytes(StandardCharsets.UTF_8);
    try (RawUpstream up = new RawUpstream(out -> out.write(replyHead(whole.length, null, whole)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Plain.", 8);
      Fixture.remote(up.base()).serve(asked.request(), asked.payload());
      assertThat(up.heads.getFirst().toLowerCase(java.util.Locale.ROOT))
          .contains("\r\naccept-encoding: identity\r\n");
    }
  }

  @Test
  void aGzippedWholeReply_failsNamingItsCoding() throws Exception {
    byte[] gz = gzip(bytes(ScriptedUpstream.reply("ok", "stop", USAGE)));
    try (RawUpstream up = new RawUpstream(out -> out.write(replyHead(gz.length, "gzip", gz)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Zipped.", 8);
      assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("Content-Encoding gzip")
          .hasMessageContaining("identity");
    }
  }

  @Test
  void aGzippedOrDeflatedStream_failsNamingItsCoding() throws Exception {
    for (String coding : new String[] {"gzip", "deflate", "br"}) {
      byte[] coded =
          coding.equals("gzip")
              ? gzip(bytes(EVENTS))
              : coding.equals("deflate") ? deflate(bytes(EVENTS)) : bytes(EVENTS);
      try (RawUpstream up = new RawUpstream(out -> writeStream(out, coding, coded))) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Zipped.", 8);
        assertThatThrownBy(
                () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
            .as(coding)
            .isInstanceOf(EngineException.class)
            .hasMessageContaining("Content-Encoding " + coding);
      }
    }
  }

  @Test
  void theIdentityCodingNamed_isServed() throws Exception {
    byte[] whole = bytes(ScriptedUpstream.reply("ok", "stop", USAGE));
    try (RawUpstream up =
        new RawUpstream(out -> out.write(replyHead(whole.length, "identity", whole)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Plain.", 8);
      assertThat(Fixture.remote(up.base()).serve(asked.request(), asked.payload()).tokens().size())
          .isEqualTo(2);
    }
    try (RawUpstream up = new RawUpstream(out -> writeStream(out, "identity", bytes(EVENTS)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Plain.", 8);
      assertThat(
              Fixture.remote(up.base())
                  .serve(asked.request(), asked.payload(), t -> true)
                  .tokens()
                  .size())
          .isEqualTo(2);
    }
  }

  @Test
  void aChatOverAGzippingUpstream_isAnswered502_namingTheCoding_notItsBytes() throws Exception {
    byte[] gz = gzip(bytes(ScriptedUpstream.reply("ok", "stop", USAGE)));
    try (RawUpstream up = new RawUpstream(out -> out.write(replyHead(gz.length, "gzip", gz)))) {
      assertThat(UpstreamReplyShapesTest.engineFailed(up.base())).contains("Content-Encoding gzip");
    }
  }

  @Test
  void aTransferCodingBesideChunked_failsNamingIt_wholeAndStreamed() throws Exception {
    byte[] gz = gzip(bytes(ScriptedUpstream.reply("ok", "stop", USAGE)));
    for (String te : new String[] {"gzip, chunked", "chunked, chunked"}) {
      try (RawUpstream up =
          new RawUpstream(
              out -> {
                out.write(
                    bytes(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                            + te
                            + "\r\nConnection: close\r\n\r\n"));
                out.write(RawUpstream.chunk(gz));
                out.write(bytes("0\r\n\r\n"));
              })) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Zipped.", 8);
        assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
            .as(te)
            .isInstanceOf(EngineException.class)
            .hasMessageContaining("Transfer-Encoding " + te);
      }
    }
    byte[] events = gzip(bytes(EVENTS));
    try (RawUpstream up =
        new RawUpstream(
            out -> {
              out.write(
                  bytes(
                      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          + "Transfer-Encoding: gzip, chunked\r\n\r\n"));
              out.write(RawUpstream.chunk(events));
              out.write(bytes("0\r\n\r\n"));
            })) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Zipped.", 8);
      assertThatThrownBy(
              () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("Transfer-Encoding gzip");
    }
  }

  /** A 200's head with {@code coding} as its Content-Encoding (none if null), then {@code body}. */
  private static byte[] replyHead(int length, String coding, byte[] body) {
    byte[] head =
        bytes(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + (coding == null ? "" : "Content-Encoding: " + coding + "\r\n")
                + "Content-Length: "
                + length
                + "\r\nConnection: close\r\n\r\n");
    byte[] out = java.util.Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, out, head.length, body.length);
    return out;
  }

  private static void writeStream(java.io.OutputStream out, String coding, byte[] body)
      throws java.io.IOException {
    out.write(
        bytes(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + (coding == null ? "" : "Content-Encoding: " + coding + "\r\n")
                + "Transfer-Encoding: chunked\r\n\r\n"));
    out.write(RawUpstream.chunk(body));
    out.write(bytes("0\r\n\r\n"));
  }

  private static byte[] gzip(byte[] b) throws java.io.IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  private static byte[] deflate(byte[] b) throws java.io.IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DeflaterOutputStream z = new DeflaterOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
