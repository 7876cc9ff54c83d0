package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.Test;

/**
 * A body refused 413 is read and discarded within bounds before its connection closes (SPEC.md 70,
 * "Request framing"): a client that writes its whole body before it reads (Python's {@code
 * http.client}) reads the 413 rather than failing its send on a reset, while a slow sender is cut
 * at the time bound and an endless one at the byte bound.
 */
class RefusedBodyDrainTest {
  private static final int LIMIT = 256;
  private static final String CHAT = "/v1/chat/completions";
  private static final String JSON = "Content-Type: application/json";

  private static Fixture server(Consumer<OpenAiServer.Builder> drain) {
    return new Fixture(null, b -> {}, b -> drain.accept(b.maxBodyBytes(LIMIT)));
  }

  /**
   * Far past what the kernel's socket buffers hold on loopback (a few MiB each way), so that a
   * close with the body unread resets the connection while the client is still writing.
   */
  private static final int WHOLE = 24 << 20;

  /** Writes the head and the whole body, as http.client does, and only then reads the answer. */
  private static RawConnection.Response writeAllThenRead(Fixture f, String head, byte[] body)
      throws IOException {
    return writeAllThenRead(f.server.port(), head, body);
  }

  /** {@link #writeAllThenRead(Fixture, String, byte[])} on the listener at {@code port}. */
  private static RawConnection.Response writeAllThenRead(int port, String head, byte[] body)
      throws IOException {
    try (Socket s = RawConnection.socket(port, 10_000)) {
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
      return RawConnection.read(s.getInputStream());
    }
  }

  @Test
  void aClientWritingItsWholeBodyBeforeReading_readsThe413_declaredOrChunked() throws Exception {
    try (Fixture f =
        server(
            b -> b.refusedBodyDrainBytes(64L << 20).refusedBodyDrainTime(Duration.ofSeconds(20)))) {
      byte[] body = new byte[WHOLE];
      java.util.Arrays.fill(body, (byte) ' ');
      writeAllThenRead(f, RawConnection.post(CHAT, JSON, "Content-Length: " + WHOLE), body)
          .answer()
          .error(413, "body_too_large");
      writeAllThenRead(
              f,
              RawConnection.post(CHAT, JSON, "Transfer-Encoding: chunked"),
              RawConnection.chunked(body))
          .answer()
          .error(413, "body_too_large");
    }
  }

  /**
   * Every refusal decided from the head that closes the connection is drained as a 413's is: a 415
   * and a 501 with the body declared or chunked, and a 411 followed by bytes it did not frame. The
   * body limit admits the declared length, which would otherwise be refused 413 first.
   */
  @Test
  void aClientWritingItsWholeBodyBeforeReading_readsEachHeadRefusal() throws Exception {
    try (Fixture f =
        server(
            b ->
                b.maxBodyBytes(WHOLE)
                    .refusedBodyDrainBytes(64L << 20)
                    .refusedBodyDrainTime(Duration.ofSeconds(20)))) {
      byte[] body = new byte[WHOLE];
      java.util.Arrays.fill(body, (byte) ' ');
      byte[] chunked = RawConnection.chunked(body);
      String text = "Content-Type: text/plain";
      writeAllThenRead(f, RawConnection.post(CHAT, text, "Content-Length: " + WHOLE), body)
          .answer()
          .error(415, "unsupported_media_type");
      writeAllThenRead(f, RawConnection.post(CHAT, text, "Transfer-Encoding: chunked"), chunked)
          .answer()
          .error(415, "unsupported_media_type");
      writeAllThenRead(
              f, RawConnection.post(CHAT, JSON, "Transfer-Encoding: gzip, chunked"), chunked)
          .answer()
          .error(501, "unsupported_transfer_coding");
      writeAllThenRead(f, RawConnection.post(CHAT, JSON), body)
          .answer()
          .error(411, "length_required");
    }
  }

  /**
   * The console reads no body: one sent with a request it refuses (405, every method but GET) is
   * drained as the API listener's is, so a client that writes it whole reads the 405 rather than
   * failing its send on a reset.
   */
  @Test
  void aConsoleClientWritingItsWholeBodyBeforeReading_readsThe405() throws Exception {
    try (Fixture f =
        server(
            b ->
                b.console("127.0.0.1", 0)
                    .refusedBodyDrainBytes(64L << 20)
                    .refusedBodyDrainTime(Duration.ofSeconds(20)))) {
      byte[] body = new byte[WHOLE];
      java.util.Arrays.fill(body, (byte) ' ');
      int console = f.server.consoleUri().orElseThrow().getPort();
      RawConnection.Response r =
          writeAllThenRead(
              console,
              RawConnection.post("/v1/mesh/status", JSON, "Content-Length: " + WHOLE),
              body);
      r.answer().error(405, "method_not_allowed");
      assertThat(r.head().toLowerCase(java.util.Locale.ROOT)).contains("connection: close");
    }
  }

  /**
   * A body that does not fit the bodies' budget is refused 429 partway through: what its client
   * still sends is drained too, so one that writes it whole reads the 429.
   */
  @Test
  void aClientWritingItsWholeBodyBeforeReading_readsThe429OfAFullBudget() throws Exception {
    int max = WHOLE;
    try (Fixture f =
            new Fixture(
                null,
                b -> {},
                b ->
                    b.maxBodyBytes(max)
                        .maxBufferedBodyBytes(2L * max)
                        .refusedBodyDrainBytes(64L << 20)
                        .refusedBodyDrainTime(Duration.ofSeconds(20)));
        RawConnection stalled = new RawConnection(f)) {
      int held = max - (256 << 10);
      stalled.send(RawConnection.post(CHAT, JSON, "Content-Length: " + max)).send(new byte[held]);
      for (int i = 0; i < 500 && f.server.bufferedBodyBytes() != 2L * held; i++) {
        Thread.sleep(10);
      }
      assertThat(f.server.bufferedBodyBytes()).isEqualTo(2L * held);
      writeAllThenRead(f, RawConnection.post(CHAT, JSON, "Content-Length: " + max), new byte[max])
          .answer()
          .error(429, "overloaded");
    }
  }

  /**
   * A request pipelined behind one refused from its head is read as part of the drained body and
   * never answered: the client reads the one refusal and the connection's end, never a second
   * answer (a 411's bytes it did not frame included, which a server that parsed on would read as a
   * request of their own).
   */
  @Test
  void aRequestPipelinedBehindAHeadRefusal_isNeverAnswered() throws Exception {
    String next = RawConnection.post(CHAT, JSON, "Content-Length: 2") + "{}";
    String text = "Content-Type: text/plain";
    try (Fixture f = server(b -> {})) {
      String[][] cases = {
        {RawConnection.post(CHAT, text, "Content-Length: 2") + "hi", "415"},
        {
          RawConnection.post(CHAT, JSON, "Transfer-Encoding: gzip, chunked")
              + "2\r\nhi\r\n0\r\n\r\n",
          "501"
        },
        {RawConnection.post(CHAT, JSON), "411"}
      };
      for (String[] c : cases) {
        try (Socket s = RawConnection.socket(f.server.port(), 10_000)) {
          OutputStream out = s.getOutputStream();
          out.write((c[0] + next).getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
          assertThat(all).as(c[1]).startsWith("HTTP/1.1 " + c[1] + " ");
          assertThat(all.split("HTTP/1\\.1 ", -1)).as(all).hasSize(2);
        }
      }
    }
  }

  /**
   * An HTTP/1.0 request's {@code Expect: 100-continue} is ignored (it has no interim answers), so
   * its client sends the body unasked: refused from its declared length, it is drained as any
   * other, where the exemption for an expectation would have reset it mid-send.
   */
  @Test
  void anHttp10ClientThatSentExpect_isDrainedToo() throws Exception {
    try (Fixture f =
        server(
            b -> b.refusedBodyDrainBytes(64L << 20).refusedBodyDrainTime(Duration.ofSeconds(20)))) {
      String head =
          "POST "
              + CHAT
              + " HTTP/1.0\r\nHost: 127.0.0.1\r\n"
              + JSON
              + "\r\nExpect: 100-continue\r\nContent-Length: "
              + WHOLE
              + "\r\n\r\n";
      writeAllThenRead(f, head, new byte[WHOLE]).answer().error(413, "body_too_large");
    }
  }

  @Test
  void aSlowSender_isCutAtTheTimeBound() throws Exception {
    try (Fixture f =
            server(
                b ->
                    b.refusedBodyDrainBytes(64L << 20)
                        .refusedBodyDrainTime(Duration.ofMillis(400)));
        Socket s = RawConnection.socket(f.server.port(), 5_000)) {
      OutputStream out = s.getOutputStream();
      out.write(
          RawConnection.post(CHAT, JSON, "Content-Length: 100000000")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      RawConnection.read(s.getInputStream()).answer().error(413, "body_too_large");
      long told = System.nanoTime();
      byte[] trickle = new byte[100];
      assertThatThrownBy(
              () -> {
                while (System.nanoTime() - told < 10_000_000_000L) {
                  out.write(trickle);
                  out.flush();
                  Thread.sleep(20);
                }
              })
          .isInstanceOf(IOException.class);
      long millis = (System.nanoTime() - told) / 1_000_000;
      // Read on past the 413 (the old close cut it at once), and cut well before the 10 s above.
      assertThat(millis).isBetween(250L, 5_000L);
    }
  }

  @Test
  void anEndlessSender_isCutAtTheByteBound() throws Exception {
    try (Fixture f =
            server(
                b ->
                    b.refusedBodyDrainBytes(1L << 20).refusedBodyDrainTime(Duration.ofMinutes(5)));
        Socket s = RawConnection.socket(f.server.port(), 5_000)) {
      OutputStream out = s.getOutputStream();
      out.write(
          RawConnection.post(CHAT, JSON, "Transfer-Encoding: chunked")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write("7fffffff\r\n".getBytes(StandardCharsets.ISO_8859_1));
      long started = System.nanoTime();
      byte[] block = new byte[64 * 1024];
      assertThatThrownBy(
              () -> {
                while (System.nanoTime() - started < 60_000_000_000L) {
                  out.write(block);
                }
              })
          .isInstanceOf(IOException.class);
      // Cut by the byte bound, minutes before the time bound.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }
  }

  /**
   * Regression: each drain held its 16 KiB read buffer from its start to its end, so refused
   * connections whose clients sent nothing more (up to {@code max_connections} of them, for the
   * time bound each) pinned that much heap apiece, and the 429 {@code overloaded} of a full body
   * budget added it when memory was already short. Now a read takes its buffer from the pool and
   * gives it back before waiting: 4,000 waiting drains, 62.5 MiB with a buffer each, hold far less.
   */
  @Test
  void drainsWaitingOnSilentClients_holdNoReadBuffer() throws Exception {
    int drains = 4_000;
    ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler();
    scheduler.start();
    List<Object> waiting = new ArrayList<>();
    try {
      long before = usedHeapAfterGc();
      for (int i = 0; i < drains; i++) {
        RefusedBodyDrain.start(
            silentEndPoint(waiting),
            scheduler,
            ByteBufferPool.NON_POOLING,
            new RefusedBodyDrain.Bounds(1 << 20, Duration.ofMinutes(1)),
            Callback.NOOP);
      }
      long held = usedHeapAfterGc() - before;
      assertThat(waiting).hasSize(drains);
      assertThat(held).as("bytes held by %d waiting drains", drains).isLessThan(16L << 20);
    } finally {
      scheduler.stop();
    }
  }

  private static long usedHeapAfterGc() {
    Runtime r = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return r.totalMemory() - r.freeMemory();
  }

  /**
   * A connection whose client sends nothing more: every read finds no bytes, and the drain's wait
   * for more is kept in {@code waiting}, as a selector keeps it.
   */
  private static EndPoint silentEndPoint(List<Object> waiting) {
    return (EndPoint)
        Proxy.newProxyInstance(
            EndPoint.class.getClassLoader(),
            new Class<?>[] {EndPoint.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "fill" -> 0;
                  case "isOpen" -> true;
                  case "tryFillInterested" -> waiting.add(args[0]);
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  @Test
  void theBounds_refuseNegativeBytesAndANonPositiveTime() {
    assertThatThrownBy(() -> new RefusedBodyDrain.Bounds(-1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RefusedBodyDrain.Bounds(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
