package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.meshjava.openai.OpenAiServer;
import org.meshjava.steward.Steward;

/**
 * What the {@code mesh} command's log binding ({@code simplelogger.properties}) prints for requests
 * a client makes up to be refused: nothing. Jetty's parser refuses a head with two {@code Host}
 * fields 400, which is answer enough, and warns of it too, one line per request naming both values,
 * so that a client sending such heads in a loop wrote the operator's log at its own rate.
 */
class DuplicateHostLogTest {
  /**
   * The default suite's sample of {@link #headsWithTwoHostFields_areRefused400_andLogNothing},
   * which starts a server: the binding the command ships sets Jetty's parser, whose one WARN is
   * that one, to ERROR.
   */
  @Test
  void theCommandsLogBinding_setsJettysParserToError() throws java.io.IOException {
    java.util.Properties binding = new java.util.Properties();
    try (java.io.InputStream in =
        DuplicateHostLogTest.class.getResourceAsStream("/simplelogger.properties")) {
      assertThat(in).as("the command's simplelogger.properties").isNotNull();
      binding.load(in);
    }
    assertThat(binding.getProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty.http.HttpParser"))
        .isEqualTo("error");
  }

  /**
   * Regression: each head with two {@code Host} fields logged a WARN, "Encountered multiple `Host`
   * headers", with both values (up to the head's size each) as the client wrote them. Slow: a
   * server's start and stop took seconds of a loaded machine's default suite.
   */
  @Test
  @Tag("slow")
  void headsWithTwoHostFields_areRefused400_andLogNothing() throws Exception {
    String log;
    try (Steward s = ReferenceSteward.ephemeral();
        OpenAiServer server = OpenAiServer.builder(s).build().start()) {
      log =
          logOf(
              () -> {
                for (int i = 0; i < 20; i++) {
                  assertThat(statusLineOf(server.port(), i)).startsWith("HTTP/1.1 400 ");
                }
              });
    }
    assertThat(log).isEmpty();
  }

  private static String statusLineOf(int port, int i) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5_000);
      s.getOutputStream()
          .write(
              ("GET /healthz HTTP/1.1\r\nHost: a" + i + "\r\nHost: b" + i + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      return reply.lines().findFirst().orElse("");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** What {@code action} wrote to standard error, where slf4j-simple logs. */
  private static String logOf(Runnable action) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
