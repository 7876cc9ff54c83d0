package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Regression: the refusals Jetty writes itself (the size limit's 413 {@code body_too_large}, a
 * chunked body whose framing breaks, a head over the size limit) never reached the request scope,
 * so an application counting answers by status, or tracing them, saw none of them. Each on a {@code
 * /v1/} path is now opened, told its status and closed; a request refused before its request line
 * was read has no path and stays outside.
 */
class JettyRefusalScopeTest {
  private static final List<String> SEEN = new CopyOnWriteArrayList<>();
  private static final Fixture F =
      new Fixture(
          null,
          b -> {},
          b ->
              b.maxBodyBytes(64)
                  .console("127.0.0.1", 0)
                  .requestScope(
                      (method, path, header) ->
                          new RequestScope.Opened() {
                            @Override
                            public void status(int status) {
                              SEEN.add(method + " " + path + " " + status);
                            }

                            @Override
                            public void close() {
                              SEEN.add("closed");
                            }
                          }));

  @AfterAll
  static void close() {
    F.close();
  }

  @Test
  void aDeclaredBodyOverTheLimit_isScopedAs413() throws Exception {
    declaredBodyOverTheLimit_isScopedAs413("/v1/chat/completions");
  }

  /** A POST to {@code target} declaring 1000 bytes is scoped as {@code /v1/chat/completions}. */
  private static void declaredBodyOverTheLimit_isScopedAs413(String target) throws Exception {
    String reply =
        exchange(
            "POST "
                + target
                + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 1000\r\n\r\n{");
    assertThat(reply).startsWith("HTTP/1.1 413 ").contains("body_too_large");
    awaitClosed();
    assertThat(SEEN).containsExactly("POST /v1/chat/completions 413", "closed");
  }

  @Test
  void aChunkedBodyGrowingPastTheLimit_isScopedAs413() throws Exception {
    String chunk = "x".repeat(100);
    String reply =
        exchange(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(chunk.length())
                + "\r\n"
                + chunk
                + "\r\n0\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 413 ");
    awaitClosed();
    assertThat(SEEN).containsExactly("POST /v1/chat/completions 413", "closed");
  }

  @Test
  void aBrokenChunk_isScopedAs400() throws Exception {
    String reply =
        exchange(
            "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 400 ");
    awaitClosed();
    assertThat(SEEN).containsExactly("POST /v1/responses 400", "closed");
  }

  @Test
  void aHeadOverTheSizeLimit_isScopedAs431() throws Exception {
    String reply =
        exchange(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Big: "
                + "y".repeat(70_000)
                + "\r\nContent-Length: 2\r\n\r\n{}");
    assertThat(reply).startsWith("HTTP/1.1 431 ");
    awaitClosed();
    assertThat(SEEN).containsExactly("POST /v1/chat/completions 431", "closed");
  }

  @Test
  void aBodyOverTheLimitOnAnEscapedV1Path_isScopedUnderTheDecodedPath_asAnAnswerIs()
      throws Exception {
    declaredBodyOverTheLimit_isScopedAs413("/%761/chat/completions");
  }

  @Test
  void aHeadOverTheSizeLimitOnTheConsoleListener_isNotScopedAsTheApis() throws Exception {
    String reply =
        exchange(
            F.server.consoleUri().orElseThrow().getPort(),
            "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: " + "y".repeat(70_000) + "\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 431 ");
    // The same refusal on the API's listener is scoped (aHeadOverTheSizeLimit_isScopedAs431). A
    // scope is told its status before the reply is written, so by now it would have been.
    assertThat(SEEN).isEmpty();
  }

  @Test
  void aMalformedHeadOnTheConsoleListener_forAV1Path_isNotScoped() throws Exception {
    String reply =
        exchange(
            F.server.consoleUri().orElseThrow().getPort(),
            "GET /v1/models HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 400 ");
    assertThat(SEEN).isEmpty();
  }

  @Test
  void aRequestLineJettyCannotRead_hasNoPath_andNoScope() throws Exception {
    String reply = exchange("POST /v1/chat/completions HTTP/9.9 junk\r\nHost: x\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 400 ");
    assertThat(SEEN).isEmpty();
  }

  /** Sends {@code request} on a new connection and reads the reply until the server closes it. */
  private static String exchange(String request) throws IOException {
    return exchange(F.server.port(), request);
  }

  /** Sends {@code request} to {@code port} and reads the reply until the server closes it. */
  private static String exchange(int port, String request) throws IOException {
    SEEN.clear();
    String reply;
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }
    return reply;
  }

  /** The scope closes after the reply is handed to the connection: waits for it, briefly. */
  private static void awaitClosed() throws InterruptedException {
    long end = System.nanoTime() + 2_000_000_000L;
    while (!SEEN.contains("closed") && System.nanoTime() < end) {
      Thread.sleep(2);
    }
  }
}
