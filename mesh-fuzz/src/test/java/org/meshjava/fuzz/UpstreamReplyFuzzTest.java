package org.meshjava.fuzz;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.openai.Prompt;
import org.meshjava.openai.UpstreamEngine;

/**
 * An upstream's reply, every byte of it (status line, headers, body framed by length, by chunks or
 * by the end of the connection; server-sent event lines and their JSON), read by an {@link
 * UpstreamEngine} serving a request: whole over its keep-alive client, streamed over Jetty's. An
 * upstream is a party the operator names but does not control; its only way to fail a serve is an
 * {@link EngineException}.
 */
class UpstreamReplyFuzzTest {
  /** Answers every connection with the reply the current input sets, then closes it. */
  private static final FixedUpstream UPSTREAM = new FixedUpstream();

  private static final UpstreamEngine ENGINE =
      UpstreamEngine.builder()
          .name("fuzzed")
          .baseUri(URI.create("http://127.0.0.1:" + UPSTREAM.port() + "/v1"))
          .model("m")
          .fidelity(Fidelity.F0)
          .costProfile(CostProfile.perToken(1))
          .timeout(Duration.ofSeconds(10))
          .build();

  /** A chat request asking for 8 tokens: its prompt bytes are what an engine is handed. */
  private static final Asked ASKED = asked();

  @FuzzTest(maxDuration = "60s")
  void whole(byte[] reply) {
    UPSTREAM.reply(reply);
    try (SilentCloseable allowed = toUpstream()) {
      Hostile.only(() -> ENGINE.serve(ASKED.request, ASKED.prompt), EngineException.class);
    }
  }

  @FuzzTest(maxDuration = "60s")
  void stream(byte[] reply) {
    UPSTREAM.reply(reply);
    try (SilentCloseable allowed = toUpstream()) {
      Hostile.only(
          () -> ENGINE.serve(ASKED.request, ASKED.prompt, run -> true), EngineException.class);
    }
  }

  /**
   * Tells Jazzer's request-forgery detector (which reports every connection it was not told of, and
   * forgets what it was told when fuzzing starts) that the target's own loopback upstream is
   * expected, whichever name a client connects to it by.
   */
  private static SilentCloseable toUpstream() {
    return BugDetectors.allowNetworkConnections((host, port) -> port == UPSTREAM.port());
  }

  private record Asked(ServeRequest request, TokenSequence prompt) {}

  private static Asked asked() {
    try {
      Prompt prompt =
          Prompt.ofChat(
              GrantedServeRequest.parseBody(
                  "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi.\"}]}"
                      .getBytes(StandardCharsets.UTF_8)));
      byte[] bytes = prompt.bytes();
      return new Asked(
          ServeRequest.generation(
              prompt.hash(), bytes.length, new ServeBounds(8, Fidelity.F0, 1_000_000)),
          ByteTokenizer.INSTANCE.encode(bytes));
    } catch (Exception e) {
      throw new AssertionError("the fixed request is valid", e);
    }
  }

  /**
   * A loopback upstream that reads each request (its head and {@code Content-Length} body), writes
   * the reply set last, and closes the connection: a reply cut short ends there rather than hang.
   */
  private static final class FixedUpstream {
    private final ServerSocket listener;
    private volatile byte[] reply = new byte[0];

    FixedUpstream() {
      try {
        listener = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Thread.ofPlatform().daemon().name("fuzzed upstream").start(this::serve);
    }

    int port() {
      return listener.getLocalPort();
    }

    void reply(byte[] bytes) {
      reply = bytes;
    }

    /**
     * Each connection on its own thread: Jetty's client now and then opens a connection it sends
     * nothing on (about 2 in 300 exchanges here), and one thread blocked reading that connection's
     * request left the next exchange's connection unaccepted, so that input waited the engine's
     * whole timeout (10 s) for a head, which read as mesh holding a reply the upstream had closed.
     */
    private void serve() {
      while (true) {
        try {
          Socket s = listener.accept();
          Thread.ofVirtual().start(() -> answer(s));
        } catch (IOException e) {
          // A failed accept: the next connection is served as usual.
        }
      }
    }

    private void answer(Socket s) {
      try (s) {
        readRequest(s.getInputStream());
        OutputStream out = s.getOutputStream();
        out.write(reply);
        out.flush();
      } catch (IOException e) {
        // The client went away mid-reply, or sent nothing: nothing more to do.
      }
    }

    private static void readRequest(InputStream in) throws IOException {
      StringBuilder head = new StringBuilder();
      while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        head.append((char) b);
      }
      int length = 0;
      for (String line : head.toString().split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(15).trim());
        }
      }
      var unused = in.readNBytes(length);
    }
  }
}
