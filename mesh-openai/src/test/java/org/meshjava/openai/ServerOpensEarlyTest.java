package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.util.component.LifeCycle;
import org.junit.jupiter.api.Test;

/**
 * The server binds every listener before any accepts, and can be built on an address bound ahead of
 * it ({@link OpenAiServer.Bound}), which accepts nothing until the server starts. {@code mesh
 * serve} counts on both: it binds its port before loading its model, and takes a start refused at a
 * bind for one that served nothing.
 */
class ServerOpensEarlyTest {
  /**
   * Regression guard: that a start refused at one bind (the console's port in use) had accepted
   * nothing on the API's listener was Jetty's default (open early), set nowhere nor tested, so a
   * change of it would have let the API's listener start accepting before the console's bind
   * failed.
   */
  @Test
  void aStartRefusedAtTheConsolesBind_neverStartedTheApisListener() throws Exception {
    try (Fixture f = new Fixture();
        ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      OpenAiServer server =
          OpenAiServer.builder(f.steward)
              .port(0)
              .console("127.0.0.1", taken.getLocalPort())
              .build();
      AtomicBoolean apiStarted = new AtomicBoolean();
      server
          .connector()
          .addEventListener(
              new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(LifeCycle event) {
                  apiStarted.set(true);
                }
              });
      try (server) {
        assertThatThrownBy(server::start)
            .isInstanceOf(IOException.class)
            .hasRootCauseInstanceOf(BindException.class);
      }
      assertThat(apiStarted).as("the API's listener started accepting").isFalse();
    }
  }

  /**
   * A connection made to a bound address before its server exists waits in the kernel's queue and
   * is answered once the server starts; a refused bind says so in Jetty's words.
   */
  @Test
  void anAddressBoundAhead_holdsItsClientsUntilTheServerStarts() throws Exception {
    try (Fixture f = new Fixture();
        OpenAiServer.Bound bound = OpenAiServer.Bound.bind("127.0.0.1", 0);
        Socket early = new Socket(InetAddress.getLoopbackAddress(), bound.port())) {
      assertThatThrownBy(() -> OpenAiServer.Bound.bind("127.0.0.1", bound.port()))
          .isInstanceOf(IOException.class)
          .hasMessage("Failed to bind to /127.0.0.1:" + bound.port())
          .hasRootCauseInstanceOf(BindException.class);
      early.setSoTimeout(10_000);
      early
          .getOutputStream()
          .write(
              "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      try (OpenAiServer server = OpenAiServer.builder(f.steward).listenOn(bound).build().start()) {
        assertThat(server.port()).isEqualTo(bound.port());
        InputStream in = early.getInputStream();
        String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(answer).startsWith("HTTP/1.1 200");
      }
    }
  }

  /** A server built on a bound address and closed without starting lets the address go. */
  @Test
  void aServerNeverStarted_letsItsBoundAddressGoWhenClosed() throws Exception {
    int port;
    try (Fixture f = new Fixture()) {
      OpenAiServer.Bound bound = OpenAiServer.Bound.bind("127.0.0.1", 0);
      port = bound.port();
      OpenAiServer.builder(f.steward).listenOn(bound).build().close();
    }
    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
  }
}
