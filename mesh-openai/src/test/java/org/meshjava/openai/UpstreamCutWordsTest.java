package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * An upstream that drops the connection in the middle of a streamed reply or before any reply, or
 * that sends bytes that are no HTTP: the serve fails with words the API client may read, which name
 * neither the upstream's address nor a Java class. Jetty's client reports such an end as an {@code
 * EOFException} whose message is its connection's {@code toString()}, local and remote address
 * included ({@code HttpConnectionOverHTTP@…(l:/127.0.0.1:… <-> r:/10.0.0.7:8000,…)}), and a reply
 * that is no HTTP as an {@code HttpResponseException} saying the same; the upstream's address is a
 * host on the operator's network (SPEC 70).
 */
class UpstreamCutWordsTest {
  static final String HEAD =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

  static final String DELTA =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]}\n\n";

  @Test
  void aStreamCutAfterADelta_failsNamingNoAddress() throws Exception {
    String chunk = Integer.toHexString(DELTA.length()) + "\r\n" + DELTA + "\r\n";
    assertFailsWithoutAddress(HEAD + chunk, "closed the connection");
  }

  @Test
  void aConnectionClosedBeforeAnyReply_failsNamingNoAddress() throws Exception {
    assertFailsWithoutAddress("", "closed the connection");
  }

  @Test
  void aMalformedChunkAfterADelta_failsNamingNoAddress() throws Exception {
    String chunk = Integer.toHexString(DELTA.length()) + "\r\n" + DELTA + "\r\n";
    // Jetty's client ends the exchange as cut short (it closes the connection on the bad chunk).
    assertFailsWithoutAddress(HEAD + chunk + "zz\r\n", "before its reply ended");
  }

  @Test
  void aHeadCutShort_failsInWords_neverNull() throws Exception {
    Cut cut = cut("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n");
    assertThat(cut.failure()).isInstanceOf(EngineException.class);
    assertThat(cut.failure().getMessage())
        .startsWith("calling the upstream: ")
        .doesNotContain("null")
        .doesNotContain("Exception");
  }

  /**
   * Regression: a whole (not streamed) reply cut short, read by the plain-HTTP client ({@link
   * KeepAliveHttp}), failed with the JDK's {@code EOFException}, which the engine did not declare
   * its client's: the API client read a reference to the log for what the streamed reply's cut says
   * in words (SPEC.md 60.10). It now reads the same words, declared.
   */
  @Test
  void aWholeReplyCutShort_isWordedForTheClient() throws Exception {
    Cut cut = cut("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"choices\"", false);
    assertThat(cut.failure()).isInstanceOf(EngineException.class);
    assertThat(((EngineException) cut.failure()).clientWords())
        .hasValue(
            "calling the upstream: the upstream closed the connection before its reply ended (the"
                + " server's log names its endpoint)");
  }

  /**
   * Regression: a streamed reply that failed in the JVM's or a library's words (a socket reset, its
   * words naming the upstream's address) was declared its API client's words, the streamed twin of
   * a failed exchange, whose such words are the operator's alone (SPEC.md 60.10). Those are
   * undeclared now (the client reads a reference); our own words, and none, still are the client's.
   */
  @Test
  void aStreamFailingInAnothersWords_isNotWordedForTheClient() throws Exception {
    ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler();
    scheduler.start();
    try {
      ContentDeadline d = new ContentDeadline(Duration.ofMinutes(1), scheduler, f -> {});
      assertThat(
              UpstreamEngine.streamFailure(
                  new IOException(new SocketException("Connection reset by /10.0.0.7:8000")), d))
          .isNull();
      assertThat(
              UpstreamEngine.streamFailure(
                  new EventLines.TooLong("the stream is longer than 8 bytes"), d))
          .isEqualTo("the stream is longer than 8 bytes");
      assertThat(UpstreamEngine.streamFailure(new ClosedChannelException(), d))
          .isEqualTo("the connection ended");
      d.stop();
    } finally {
      scheduler.stop();
    }
  }

  @Test
  void aReplyThatIsNoHttp_failsNamingNoAddress() throws Exception {
    assertFailsWithoutAddress("SMTP ready\r\n\r\n", "not valid HTTP");
  }

  @Test
  void aFailureJettyDoesNotWordInItsOwnTerms_getsNoConnectionWords() {
    // A timeout, a refused connection or the like keeps its own words (UpstreamHttp.failed); only
    // an early close or a reply that is no HTTP is reworded, found anywhere in the cause chain.
    assertThat(UpstreamHttp.connectionWords(new java.net.ConnectException("Connection refused")))
        .isNull();
    assertThat(
            UpstreamHttp.connectionWords(
                new java.io.IOException("wrapped", new java.io.EOFException("HttpConnection@1"))))
        .isEqualTo("the upstream closed the connection before its reply ended");
  }

  /**
   * Regression: a stream that broke after its status came was logged nowhere, so the operator of an
   * upstream cutting its replies had no line naming it. It is logged at WARN with the backend's
   * name and endpoint and what broke, and without the client's prompt.
   */
  @Test
  void aStreamCutAfterADelta_isLoggedForTheOperator_withoutThePrompt() throws Exception {
    String chunk = Integer.toHexString(DELTA.length()) + "\r\n" + DELTA + "\r\n";
    assertLoggedOnce(
        cut(HEAD + chunk), "the upstream's stream failed: the upstream closed the connection");
  }

  /**
   * Regression: an upstream that ends its streams without the usage report (one that ignores {@code
   * stream_options.include_usage}) fails every serve, and nothing told its operator why.
   */
  @Test
  void aStreamWithoutAUsageReport_isLoggedForTheOperator_withoutThePrompt() throws Exception {
    String delta = Integer.toHexString(DELTA.length()) + "\r\n" + DELTA + "\r\n";
    String done = "data: [DONE]\n\n";
    String end = Integer.toHexString(done.length()) + "\r\n" + done + "\r\n0\r\n\r\n";
    Cut cut = cut(HEAD + delta + end);
    assertThat(cut.failure()).hasMessageContaining("without a usage report");
    assertLoggedOnce(cut, "the upstream ended its stream without a usage report");
  }

  /** The server's log has one WARN line for the upstream, saying {@code words}, not the prompt. */
  private static void assertLoggedOnce(Cut cut, String words) {
    assertThat(cut.log().lines().filter(l -> l.contains("upstream remote")))
        .singleElement()
        .asString()
        .contains(
            "WARN",
            "upstream remote at http://127.0.0.1:"
                + cut.port()
                + "/v1/chat/completions reply failed: "
                + words)
        .doesNotContain(PROMPT);
  }

  private static final String PROMPT = "Cut me.";

  /** How a serve against an upstream that sent {@code reply} ended, and what the server logged. */
  private record Cut(Throwable failure, int port, String log) {}

  private static void assertFailsWithoutAddress(String reply, String words) throws Exception {
    Cut cut = cut(reply);
    assertThat(cut.failure()).isInstanceOf(EngineException.class);
    assertThat(cut.failure().getMessage())
        .contains(words)
        .doesNotContain(Integer.toString(cut.port()))
        .doesNotContain("127.0.0.1")
        .doesNotContain("HttpConnection")
        .doesNotContain("Exception");
    // The words are the engine's declared client words (SPEC.md 60.10), not a reference to a log.
    assertThat(((EngineException) cut.failure()).clientWords())
        .hasValue(cut.failure().getMessage());
  }

  private static Cut cut(String reply) throws Exception {
    return cut(reply, true);
  }

  /** As {@link #cut(String)}, the serve streamed or asked whole. */
  private static Cut cut(String reply, boolean streamed) throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread up =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (Socket s = listener.accept()) {
                      readRequest(s.getInputStream());
                      OutputStream out = s.getOutputStream();
                      out.write(reply.getBytes(StandardCharsets.UTF_8));
                      out.flush();
                    } catch (Exception ignored) {
                      // The test's assertions say what went wrong.
                    }
                  });
      int port = listener.getLocalPort();
      UpstreamEngine engine = Fixture.remote(URI.create("http://127.0.0.1:" + port + "/v1"));
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat(PROMPT, 8);
      Throwable[] failure = new Throwable[1];
      String log =
          Fixture.stderrOf(
              () ->
                  failure[0] =
                      catchThrowable(
                          () -> {
                            var unused =
                                streamed
                                    ? engine.serve(asked.request(), asked.payload(), t -> true)
                                    : engine.serve(asked.request(), asked.payload());
                          }));
      up.join();
      return new Cut(failure[0], port, log);
    }
  }

  /** Reads a request's head and its Content-Length body. */
  static void readRequest(InputStream in) throws Exception {
    var unused = RawUpstream.readRequest(in);
  }
}
