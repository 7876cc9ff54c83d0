package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;

/**
 * Connections opened and left silent cost their client nothing, and the API's listener held every
 * one until the idle timeout: about 20,000 of them took every file descriptor {@code mesh serve}
 * could open, after which no client was accepted until they idled out. The listener now holds at
 * most {@link OpenAiServer.Builder#maxConnections} and, at that bound, closes its idle connections
 * after {@link OpenAiServer#LIMITED_IDLE_TIMEOUT}, so a waiting client is accepted and served.
 */
class ConnectionLimitTest {
  /**
   * The idle timeout at the bound in these cases: shorter than the server's {@link
   * OpenAiServer#LIMITED_IDLE_TIMEOUT}, whose second each case would otherwise wait out at least
   * once, and still long enough for a loaded machine to read a request sent with its connect.
   */
  private static final Duration LIMITED = Duration.ofMillis(300);

  private static final String HEALTH = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

  @Test
  void silentConnections_atTheBound_giveWayToAWaitingClient() throws Exception {
    // An idle timeout far longer than the test: only the bound can close the silent connections.
    try (Fixture f =
        new Fixture(
            null,
            b -> {},
            b ->
                b.maxConnections(3)
                    .idleTimeout(Duration.ofMinutes(5))
                    .limitedIdleTimeout(LIMITED))) {
      silentConnectionsGiveWay(f.server.port(), 3, HEALTH, true);
    }
  }

  /**
   * The console's listener had no bound at all: connections opened to it and left silent were held
   * for the whole idle timeout, however many, taking the file descriptors the API and the journal
   * need. It holds {@link OpenAiServer#CONSOLE_MAX_CONNECTIONS} now, as the API's listener holds
   * its own bound, and gives silent ones way in the same manner.
   */
  @Test
  void theConsoleListener_isBoundedToo_andItsSilentConnectionsGiveWay() throws Exception {
    try (Fixture f =
        new Fixture(
            null,
            b -> {},
            b ->
                b.console("127.0.0.1", 0)
                    .idleTimeout(Duration.ofMinutes(5))
                    .limitedIdleTimeout(LIMITED))) {
      silentConnectionsGiveWay(
          f.server.consoleUri().orElseThrow().getPort(),
          OpenAiServer.CONSOLE_MAX_CONNECTIONS,
          "GET /console/console.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
          false);
    }
  }

  /**
   * Opens {@code bound} connections to {@code port} that stay silent, each after one exchange of
   * {@code request} when {@code answered}; a client after them is answered once the listener has
   * closed a silent one.
   */
  private static void silentConnectionsGiveWay(
      int port, int bound, String request, boolean answered) throws Exception {
    List<RawConnection> silent = new ArrayList<>();
    try {
      for (int i = 0; i < bound; i++) {
        RawConnection c = new RawConnection(port);
        silent.add(c);
        if (answered) {
          // One exchange each, so that every one is accepted before the next client comes.
          assertThat(c.send(request).read().status()).isEqualTo(200);
        }
      }
      // Accepted only once a silent connection has been closed: the listener is at its bound.
      try (RawConnection waiting = new RawConnection(port)) {
        assertThat(waiting.send(request).read().status()).isEqualTo(200);
      }
      boolean closed = false;
      for (int i = 0; i < silent.size() && !closed; i++) {
        closed = silent.get(i).closedWithin(200);
      }
      assertThat(closed).as("a silent connection the server closed").isTrue();
    } finally {
      for (RawConnection c : silent) {
        c.close();
      }
    }
  }

  /**
   * The connection whose arrival reaches the bound kept the listener's full idle timeout: Jetty
   * shortens the timeouts of the connections already open as the new one is being accepted, and
   * then opens the new one with the listener's own. Here the other connection is busy serving, so
   * the silent one that filled the listener was the only one that could give way, and a waiting
   * client was kept out for the whole idle timeout (five minutes here).
   */
  @Test
  void theConnectionThatReachesTheBound_isClosedWhenIdleLikeTheOthers() throws Exception {
    HeldEngine held = new HeldEngine(1, 1);
    try (Fixture f =
            new Fixture(
                SigningKey.generate(),
                b -> b.backend(held),
                b ->
                    b.maxConnections(2)
                        .idleTimeout(Duration.ofMinutes(5))
                        .limitedIdleTimeout(LIMITED));
        RawConnection serving = new RawConnection(f)) {
      byte[] body = Fixture.chat("held").toString().getBytes(StandardCharsets.UTF_8);
      serving.send(
          RawConnection.post(
              "/v1/chat/completions",
              "Content-Type: application/json",
              "Content-Length: " + body.length));
      serving.send(body);
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      try (RawConnection silent = new RawConnection(f)) {
        // Its exchange makes sure it is the one accepted second, reaching the bound.
        assertThat(silent.send(HEALTH).read().status()).isEqualTo(200);
        try (RawConnection waiting = new RawConnection(f)) {
          // Read within RawConnection's 5 s: only the silent connection's closing lets it in.
          assertThat(waiting.send(HEALTH).read().status()).isEqualTo(200);
        }
        assertThat(silent.closedWithin(1)).as("the silent connection was closed").isTrue();
      } finally {
        held.release.countDown();
      }
      assertThat(serving.read().status()).isEqualTo(200);
    }
  }

  /**
   * At the bound every connection's idle timeout is short ({@link #LIMITED} here), but one whose
   * serve is still running (nothing to read or write meanwhile) keeps it: the serve is answered
   * when it ends.
   *
   * <p>The serve starts while its connection is the listener's only one, and has been idle longer
   * than the short timeout when a second connection reaches the bound: Jetty checks a shortened
   * timeout at once, so the serving connection's expires right then, before the new one's can. The
   * new one then closing, silent, shows the bound was reached. (Both connections opened first, as
   * this test once did, left each silent at the bound while the serve started: under load the start
   * took over a second and the server closed one before its request was read.)
   */
  @Test
  void aServeInProgress_atTheBound_isAnsweredWhenItEnds() throws Exception {
    HeldEngine held = new HeldEngine(1, 1);
    try (Fixture f =
            new Fixture(
                SigningKey.generate(),
                b -> b.backend(held),
                b ->
                    b.maxConnections(2)
                        .idleTimeout(Duration.ofMinutes(5))
                        .limitedIdleTimeout(LIMITED));
        RawConnection serving = new RawConnection(f)) {
      byte[] body = Fixture.chat("held").toString().getBytes(StandardCharsets.UTF_8);
      serving.send(
          RawConnection.post(
              "/v1/chat/completions",
              "Content-Type: application/json",
              "Content-Length: " + body.length));
      serving.send(body);
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      // Idle past the short timeout before the bound is reached, so that it expires at once then.
      Thread.sleep(LIMITED.toMillis() * 2);
      try (RawConnection other = new RawConnection(f)) {
        // Only the bound's short idle timeout closes a silent connection before five minutes.
        assertThat(other.closedWithin(60_000)).as("the bound was reached").isTrue();
      }
      held.release.countDown();
      assertThat(serving.read().status()).isEqualTo(200);
    }
  }

  @Test
  void defaultBound_leavesFilesForTheJournal_whenTheProcessMayOpenFew() {
    assertThat(OpenAiServer.connectionsFor(Long.MAX_VALUE))
        .isEqualTo(OpenAiServer.DEFAULT_MAX_CONNECTIONS);
    assertThat(OpenAiServer.connectionsFor(20_000)).isEqualTo(10_000);
    assertThat(OpenAiServer.connectionsFor(4_096)).isEqualTo(3_072);
    assertThat(OpenAiServer.connectionsFor(1_024)).isEqualTo(768);
    assertThat(OpenAiServer.connectionsFor(100)).isEqualTo(64);
    assertThat(OpenAiServer.defaultMaxConnections()).isBetween(64, 10_000);
  }

  @Test
  void theBoundMustBePositive() {
    try (Fixture f = new Fixture()) {
      OpenAiServer.Builder b = OpenAiServer.builder(f.steward);
      assertThatThrownBy(() -> b.maxConnections(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxConnections");
    }
  }
}
