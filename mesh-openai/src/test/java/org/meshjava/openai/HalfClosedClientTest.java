package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A client that shuts down its sending side once its request is sent (a half-close, as {@code nc
 * -N} or a shell's here-document does) is still answered: its request is whole, and the end of its
 * input says only that no other request follows. The answer is written and the connection then
 * closed, for a whole reply and for a stream.
 */
class HalfClosedClientTest {
  private static final Fixture F = new Fixture();

  @AfterAll
  static void close() {
    F.close();
  }

  @Test
  void aRequestFollowedByAHalfClose_isAnsweredWhole() throws Exception {
    String reply = halfClosed(Fixture.chat("Answer after my half-close.").toString());
    assertThat(reply).startsWith("HTTP/1.1 200 ").contains("\"chat.completion\"");
    assertThat(reply).contains("\"envelope_hex\"");
  }

  @Test
  void aStreamedRequestFollowedByAHalfClose_isStreamedToItsEnd() throws Exception {
    String reply =
        halfClosed(Fixture.chat("Stream after my half-close.").put("stream", true).toString());
    assertThat(reply).startsWith("HTTP/1.1 200 ").contains("data: [DONE]");
  }

  private static String halfClosed(String body) throws Exception {
    try (Socket s = new Socket("127.0.0.1", F.server.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      out.write(Fixture.chatPostHead(bytes.length));
      out.write(bytes);
      out.flush();
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
