package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;

/**
 * Issue 14 item 2: twelve connections sending {@code Content-Length: 100000} and then a byte a
 * second made every other request hang, because bodies were read on a bounded pool of blocking
 * threads. Bodies are now read as their bytes arrive, within a deadline. Loopback only; each test
 * is bounded to a few seconds.
 */
class SlowBodyTest {
  private static final int SLOW_CLIENTS = 500;

  private static Socket slowClient(Fixture f) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", f.server.port()), 5_000);
    s.setSoTimeout(5_000);
    OutputStream out = s.getOutputStream();
    out.write(
        ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return s;
  }

  @Test
  void slowBodies_fromManyConnections_doNotDelayAnotherRequest() throws Exception {
    try (Fixture f =
        new Fixture(SigningKey.generate(), b -> {}, b -> b.bodyDeadline(Duration.ofSeconds(30)))) {
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < SLOW_CLIENTS; i++) {
          slow.add(slowClient(f));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int round = 0; round < 3; round++) {
          // Every slow client sends one more byte, so none is idle, then a normal request runs.
          for (Socket s : slow) {
            s.getOutputStream().write(' ');
            s.getOutputStream().flush();
          }
          long start = System.nanoTime();
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                      .timeout(Duration.ofSeconds(5))
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("hi").toString()))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          long millis = (System.nanoTime() - start) / 1_000_000;
          assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
          assertThat(millis)
              .as("a normal request beside %d slow bodies", SLOW_CLIENTS)
              .isLessThan(1_000);
        }
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
    }
  }

  @Test
  void stalledBody_isAnswered408AndClosedAtTheDeadline() throws Exception {
    try (Fixture f =
        new Fixture(SigningKey.generate(), b -> {}, b -> b.bodyDeadline(Duration.ofMillis(300)))) {
      long start = System.nanoTime();
      try (Socket s = slowClient(f)) {
        InputStream in = s.getInputStream();
        String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(reply).startsWith("HTTP/1.1 408 ");
        assertThat(reply).contains("\"code\":\"body_timeout\"");
        assertThat(reply.toLowerCase(java.util.Locale.ROOT)).contains("connection: close");
        // readAllBytes returned: the server closed the connection.
        assertThat(millis).isBetween(250L, 4_000L);
      }
      // The server still serves.
      assertThat(f.post("/v1/chat/completions", Fixture.chat("ok")).status()).isEqualTo(200);
    }
  }
}
