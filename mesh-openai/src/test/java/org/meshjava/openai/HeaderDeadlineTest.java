package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;

/**
 * A client that trickles its request headers a byte at a time kept its connection for as long as
 * each byte came within the idle timeout: hours for a header of a few kilobytes. Headers now have a
 * deadline from their first byte ({@link OpenAiServer.Builder#headerDeadline}). Loopback only; each
 * case is bounded to a few seconds.
 */
class HeaderDeadlineTest {
  private static final Duration DEADLINE = Duration.ofMillis(500);

  /** Closed no sooner than this (milliseconds): the deadline, less a tenth for the clocks. */
  private static final long EARLIEST = DEADLINE.toMillis() * 9 / 10;

  /** Closed no later than this (milliseconds): four deadlines, well before any idle timeout. */
  private static final long LATEST = DEADLINE.toMillis() * 4;

  private static final String HEAD = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n";

  private static Fixture fixture() {
    return new Fixture(SigningKey.generate(), b -> {}, b -> b.headerDeadline(DEADLINE));
  }

  private static Socket connect(Fixture f) throws IOException {
    return RawConnection.socket(f.server.port(), 100);
  }

  /**
   * Sends one more header byte every 100 ms, for up to {@code limit}; returns the milliseconds
   * until the server closed the connection, or -1 if it was still open at the limit.
   */
  private static long trickleUntilClosed(Socket s, Duration limit) throws IOException {
    long start = System.nanoTime();
    OutputStream out = s.getOutputStream();
    InputStream in = s.getInputStream();
    while (System.nanoTime() - start < limit.toNanos()) {
      try {
        out.write('X');
        out.flush();
        int first = in.read();
        if (first == -1) {
          return (System.nanoTime() - start) / 1_000_000;
        }
        throw new AssertionError(
            "the server answered a request whose headers never ended: "
                + (char) first
                + new String(in.readNBytes(300), StandardCharsets.US_ASCII));
      } catch (SocketTimeoutException stillOpen) {
        // Nothing to read yet: the connection is open; trickle on.
      } catch (IOException reset) {
        return (System.nanoTime() - start) / 1_000_000;
      }
    }
    return -1;
  }

  /** Sends a whole {@code GET /healthz} and reads its whole reply; returns the status line. */
  private static String exchange(Socket s) throws IOException {
    s.getOutputStream()
        .write(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    s.setSoTimeout(5_000);
    String statusLine = RawConnection.read(s.getInputStream()).statusLine();
    s.setSoTimeout(100);
    return statusLine;
  }

  @Test
  void trickledHeaders_closeTheConnection_afterTheDeadline() throws Exception {
    try (Fixture f = fixture();
        Socket s = connect(f)) {
      s.getOutputStream().write(HEAD.getBytes(StandardCharsets.US_ASCII));
      long closedAfter = trickleUntilClosed(s, Duration.ofSeconds(8));
      assertThat(closedAfter).as("closed after (ms; -1: still open)").isBetween(EARLIEST, LATEST);
      // The server still serves.
      assertThat(f.post("/v1/chat/completions", Fixture.chat("ok")).status()).isEqualTo(200);
    }
  }

  @Test
  void aHeadThatStops_isClosedAtTheDeadline_asOneThatTrickles() throws Exception {
    try (Fixture f = fixture();
        Socket s = connect(f)) {
      s.getOutputStream().write(HEAD.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      long start = System.nanoTime();
      s.setSoTimeout(8_000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat((System.nanoTime() - start) / 1_000_000).isBetween(EARLIEST, LATEST);
    }
  }

  @Test
  void aKeepAliveConnection_isHeldToTheDeadline_onItsNextRequest() throws Exception {
    try (Fixture f = fixture();
        Socket s = connect(f)) {
      assertThat(exchange(s)).isEqualTo("HTTP/1.1 200 OK");
      s.getOutputStream().write(HEAD.getBytes(StandardCharsets.US_ASCII));
      assertThat(trickleUntilClosed(s, Duration.ofSeconds(8))).isBetween(EARLIEST, LATEST);
    }
  }

  @Test
  void aConnectionIdleBetweenRequests_isLeftToTheIdleTimeout() throws Exception {
    try (Fixture f = fixture();
        Socket s = connect(f)) {
      assertThat(exchange(s)).isEqualTo("HTTP/1.1 200 OK");
      // Silent for well past the header deadline: no head has begun, so nothing is due.
      Thread.sleep(DEADLINE.multipliedBy(5).toMillis() / 2);
      assertThat(exchange(s)).isEqualTo("HTTP/1.1 200 OK");
    }
  }

  @Test
  void aBodyArrivingSlowly_isHeldToTheBodyDeadline_notTheHeaderDeadline() throws Exception {
    try (Fixture f = fixture();
        Socket s = connect(f)) {
      byte[] body = Fixture.chat("slow").toString().getBytes(StandardCharsets.UTF_8);
      OutputStream out = s.getOutputStream();
      out.write(
          (HEAD + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // The body takes 2.5 deadlines, within the body deadline (10 s by default).
      long pause = DEADLINE.multipliedBy(5).toMillis() / 2 / body.length;
      for (byte b : body) {
        out.write(b);
        out.flush();
        Thread.sleep(pause);
      }
      s.setSoTimeout(5_000);
      String reply = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
      assertThat(reply).isEqualTo("HTTP/1.1 200");
    }
  }

  @Test
  void closedConnections_areNoLongerWatched() throws Exception {
    try (Fixture f = fixture()) {
      for (int i = 0; i < 20; i++) {
        try (Socket s = connect(f)) {
          assertThat(exchange(s)).isEqualTo("HTTP/1.1 200 OK");
        }
      }
      long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (f.server.watchedConnections() > 0 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(f.server.watchedConnections()).isZero();
    }
  }

  @Test
  void theDeadlineMustBePositive() {
    try (Fixture f = new Fixture()) {
      OpenAiServer.Builder b = OpenAiServer.builder(f.steward);
      org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
          .isThrownBy(() -> b.headerDeadline(Duration.ZERO))
          .withMessageContaining("headerDeadline");
    }
  }
}
