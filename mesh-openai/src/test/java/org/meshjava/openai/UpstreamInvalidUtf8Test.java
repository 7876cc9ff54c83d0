package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * Bytes that are not UTF-8 inside an upstream's reply. JSON is UTF-8 (RFC 8259 §8.1), and a whole
 * reply holding such bytes has always failed as not JSON; the same bytes inside a streamed event
 * were decoded as U+FFFD and served, and the receipt committed to a character the upstream never
 * sent. A stream now fails on them as a whole reply does, while U+FFFD itself, sent as its UTF-8,
 * is served either way.
 */
class UpstreamInvalidUtf8Test {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  /** "a", then {@code middle}, then "b", as the content of an event's delta. */
  private static byte[] event(byte[] middle) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a"));
    out.writeBytes(middle);
    out.writeBytes(bytes("b\"}}]}\n\ndata: {\"choices\":[],\"usage\":" + USAGE + "}\n\n"));
    out.writeBytes(bytes("data: [DONE]\n\n"));
    return out.toByteArray();
  }

  /** A whole reply whose content is "a", then {@code middle}, then "b". */
  private static byte[] whole(byte[] middle) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","));
    out.writeBytes(bytes("\"content\":\"a"));
    out.writeBytes(middle);
    out.writeBytes(bytes("b\"},\"finish_reason\":\"stop\"}],\"usage\":" + USAGE + "}"));
    return out.toByteArray();
  }

  private static final byte[][] NOT_UTF8 = {
    {(byte) 0xC3}, // a lead byte without its continuation
    {(byte) 0x80}, // a continuation byte alone
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate encoded (CESU-8)
    {(byte) 0xC0, (byte) 0xAF}, // an overlong '/'
    {(byte) 0xFF},
  };

  @Test
  void bytesThatAreNotUtf8_failAStreamedEvent_asTheyFailAWholeReply() throws Exception {
    for (byte[] bad : NOT_UTF8) {
      String hex = java.util.HexFormat.of().formatHex(bad);
      try (RawUpstream up = new RawUpstream(out -> writeStream(out, event(bad)))) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
        assertThatThrownBy(
                () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
            .as("streamed %s", hex)
            .isInstanceOf(EngineException.class)
            .hasMessage("the upstream sent a stream event that is not JSON: it is not UTF-8");
      }
      try (RawUpstream up = new RawUpstream(out -> writeWhole(out, whole(bad)))) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
        assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
            .as("whole %s", hex)
            .isInstanceOf(EngineException.class)
            .hasMessageStartingWith("the upstream sent a body that is not JSON");
      }
    }
  }

  @Test
  void theReplacementCharacterSentAsUtf8_isServedEitherWay() throws Exception {
    byte[] fffd = "\uFFFD".getBytes(StandardCharsets.UTF_8);
    try (RawUpstream up = new RawUpstream(out -> writeStream(out, event(fffd)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      EngineResult r = Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
      assertThat(r.tokens().size()).isEqualTo(3);
      assertThat(r.tokens().get(1)).isEqualTo(0xFFFD);
    }
    try (RawUpstream up = new RawUpstream(out -> writeWhole(out, whole(fffd)))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      EngineResult r = Fixture.remote(up.base()).serve(asked.request(), asked.payload());
      assertThat(r.tokens().get(1)).isEqualTo(0xFFFD);
    }
  }

  /**
   * A byte order mark opening a stream hid its first line's "data:", so the first event was skipped
   * and its text never served (the receipt sealed with the upstream's count for less text); one
   * before a whole reply was dropped by Jackson. Both now serve every character.
   */
  @Test
  void aByteOrderMarkOpeningTheReply_losesNoTextEitherWay() throws Exception {
    try (RawUpstream up = new RawUpstream(out -> writeStream(out, withBom(event(new byte[0]))))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      EngineResult r = Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
      assertThat(r.tokens().size()).isEqualTo(2);
    }
    try (RawUpstream up = new RawUpstream(out -> writeWhole(out, withBom(whole(new byte[0]))))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      EngineResult r = Fixture.remote(up.base()).serve(asked.request(), asked.payload());
      assertThat(r.tokens().size()).isEqualTo(2);
    }
  }

  private static byte[] withBom(byte[] reply) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes("\uFEFF"));
    out.writeBytes(reply);
    return out.toByteArray();
  }

  @Test
  void aCommentLineThatIsNotUtf8_failsTheStreamToo() throws Exception {
    ByteArrayOutputStream events = new ByteArrayOutputStream();
    events.writeBytes(bytes(": "));
    events.write(0xC3);
    events.writeBytes(bytes("\n\n"));
    events.writeBytes(event(bytes("")));
    try (RawUpstream up = new RawUpstream(out -> writeStream(out, events.toByteArray()))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      assertThatThrownBy(
              () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("not UTF-8");
    }
  }

  @Test
  void aRefusalThatIsNotUtf8_isStillARefusal() throws Exception {
    byte[] said = {'n', 'o', (byte) 0xC3, '\n'};
    try (RawUpstream up =
        new RawUpstream(
            out -> {
              out.write(
                  bytes(
                      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: "
                          + said.length
                          + "\r\nConnection: close\r\n\r\n"));
              out.write(said);
            })) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Bytes.", 8);
      assertThatThrownBy(
              () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
          .isInstanceOf(UpstreamRefusedException.class)
          .hasMessageStartingWith("the upstream answered HTTP 400");
    }
  }

  private static void writeStream(java.io.OutputStream out, byte[] events)
      throws java.io.IOException {
    out.write(bytes(UpstreamCutWordsTest.HEAD));
    out.write(RawUpstream.chunk(events));
    out.write(bytes("0\r\n\r\n"));
  }

  private static void writeWhole(java.io.OutputStream out, byte[] body) throws java.io.IOException {
    out.write(
        bytes(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n"));
    out.write(body);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
