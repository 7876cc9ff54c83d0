package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The blocking keep-alive client against a scripted HTTP/1.1 server on a plain socket: framing
 * (length, chunks, end of connection), interim answers, connection reuse, the one retry of a pooled
 * connection the server closed, and the limits (size, time, malformed replies).
 */
class KeepAliveHttpTest {
  private static final byte[] BODY = "{\"ask\":1}".getBytes(StandardCharsets.UTF_8);

  /** What the scripted server answers to request number {@code n} (from 0), and what it does. */
  private interface Script {
    /** The raw reply bytes; null sends nothing (the connection stays open, unanswered). */
    String reply(int n);

    /** Whether the server closes the connection after that reply. */
    default boolean closeAfter(int n) {
      return false;
    }

    /** Whether the reply is written one byte at a time, each its own write after a pause. */
    default boolean byteByByte() {
      return false;
    }
  }

  /** A server answering per script; counts connections and keeps each request's head. */
  private static final class Scripted implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger requests = new AtomicInteger();
    final List<String> heads = new CopyOnWriteArrayList<>();
    final List<Socket> open = new CopyOnWriteArrayList<>();

    Scripted(Script script) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    open.add(s);
                    Thread h = new Thread(() -> serve(s, script));
                    h.setDaemon(true);
                    h.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      t.setDaemon(true);
      t.start();
    }

    private void serve(Socket s, Script script) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          heads.add(head);
          int length = 0;
          for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).trim());
            }
          }
          byte[] unusedBody = in.readNBytes(length);
          int n = requests.getAndIncrement();
          String reply = script.reply(n);
          if (reply == null) {
            Thread.sleep(60_000);
            return;
          }
          byte[] bytes = reply.getBytes(StandardCharsets.ISO_8859_1);
          if (script.byteByByte()) {
            for (byte b : bytes) {
              out.write(b);
              out.flush();
              Thread.sleep(3);
            }
          } else {
            out.write(bytes);
            out.flush();
          }
          if (script.closeAfter(n)) {
            return;
          }
        }
      } catch (IOException | InterruptedException e) {
        // The client went away; nothing to answer.
      }
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        byte[] h = head.toByteArray();
        int l = h.length;
        if (l >= 4
            && h[l - 4] == '\r'
            && h[l - 3] == '\n'
            && h[l - 2] == '\r'
            && h[l - 1] == '\n') {
          return head.toString(StandardCharsets.ISO_8859_1);
        }
      }
      return null;
    }

    KeepAliveHttp client() {
      return new KeepAliveHttp(
          URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/chat/completions"),
          Optional.of("secret"));
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : open) {
        s.close();
      }
    }
  }

  private static String ok(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + body.length()
        + "\r\n\r\n"
        + body;
  }

  private static String text(UpstreamHttp.Answer a) {
    return new String(a.body(), StandardCharsets.UTF_8);
  }

  private static final Duration SECONDS = Duration.ofSeconds(10);

  @Test
  void lengthFramedReplies_reuseOneConnection_andTheRequestCarriesItsHeaders() throws Exception {
    try (Scripted s = new Scripted(n -> ok("{\"n\":" + n + "}"))) {
      KeepAliveHttp http = s.client();
      UpstreamHttp.Answer first = http.post(BODY, SECONDS);
      UpstreamHttp.Answer second = http.post(BODY, SECONDS);
      assertThat(first.status()).isEqualTo(200);
      assertThat(text(first)).isEqualTo("{\"n\":0}");
      assertThat(text(second)).isEqualTo("{\"n\":1}");
      assertThat(s.connections.get()).as("one keep-alive connection").isEqualTo(1);
      assertThat(s.heads.get(0))
          .startsWith("POST /v1/chat/completions HTTP/1.1\r\n")
          .contains("\r\nHost: 127.0.0.1:" + s.server.getLocalPort() + "\r\n")
          .contains("\r\nContent-Type: application/json\r\n")
          .contains("\r\nAuthorization: Bearer secret\r\n")
          .contains("\r\nContent-Length: " + BODY.length + "\r\n");
    }
  }

  @Test
  void chunkedReply_withExtensionsAndTrailers_isReadWhole_andTheConnectionKept() throws Exception {
    String chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;name=x\r\n{\"a\"\r\n"
            + "3\r\n:1}\r\n"
            + "0\r\nX-Trailer: t\r\n\r\n";
    try (Scripted s = new Scripted(n -> chunked)) {
      KeepAliveHttp http = s.client();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"a\":1}");
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"a\":1}");
      assertThat(s.connections.get()).isEqualTo(1);
    }
  }

  @Test
  void interimAnswers_areSkipped_andNonOkStatusesReturned() throws Exception {
    try (Scripted s =
        new Scripted(
            n ->
                "HTTP/1.1 100 Continue\r\n\r\n"
                    + "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy")) {
      UpstreamHttp.Answer a = s.client().post(BODY, SECONDS);
      assertThat(a.status()).isEqualTo(503);
      assertThat(text(a)).isEqualTo("busy");
    }
  }

  @Test
  void replyFramedByTheEndOfTheConnection_isReadWhole_andTheConnectionNotReused() throws Exception {
    try (Scripted s =
        new Scripted(
            new Script() {
              @Override
              public String reply(int n) {
                return "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end " + n;
              }

              @Override
              public boolean closeAfter(int n) {
                return true;
              }
            })) {
      KeepAliveHttp http = s.client();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("until the end 0");
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("until the end 1");
      assertThat(s.connections.get()).isEqualTo(2);
    }
  }

  /**
   * The keep-alive race: the server closes a connection after answering, the client still holds it
   * pooled; the next request fails on it before any reply byte and is sent once more on a new one.
   */
  @Test
  void pooledConnectionClosedByTheServer_isRetriedOnceOnANewOne() throws Exception {
    try (Scripted s =
        new Scripted(
            new Script() {
              @Override
              public String reply(int n) {
                return ok("{\"n\":" + n + "}");
              }

              @Override
              public boolean closeAfter(int n) {
                return true; // without saying Connection: close
              }
            })) {
      KeepAliveHttp http = s.client();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"n\":0}");
      Thread.sleep(100); // the server's close reaches the client's socket
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"n\":1}");
      assertThat(s.connections.get()).isEqualTo(2);
      assertThat(s.requests.get()).as("the second request reached the server once").isEqualTo(2);
    }
  }

  @Test
  void newConnectionClosedWithoutAReply_failsWithoutARetry() throws Exception {
    try (Scripted s =
        new Scripted(
            new Script() {
              @Override
              public String reply(int n) {
                return "";
              }

              @Override
              public boolean closeAfter(int n) {
                return true;
              }
            })) {
      assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("closed the connection without a reply");
      assertThat(s.requests.get()).isEqualTo(1);
    }
  }

  @Test
  void replyOverTheLimit_fails() throws Exception {
    try (Scripted s =
        new Scripted(
            n ->
                "HTTP/1.1 200 OK\r\nContent-Length: "
                    + (UpstreamHttp.MAX_REPLY_BYTES + 1)
                    + "\r\n\r\n{")) {
      assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("larger than " + UpstreamHttp.MAX_REPLY_BYTES);
    }
  }

  @Test
  void chunkedReplyOverTheLimit_fails() throws Exception {
    String huge = Integer.toHexString(UpstreamHttp.MAX_REPLY_BYTES + 1);
    try (Scripted s =
        new Scripted(
            n -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + huge + "\r\n")) {
      assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("larger than " + UpstreamHttp.MAX_REPLY_BYTES);
    }
  }

  /**
   * Regression: a body's buffer grew by doubling, past {@link UpstreamHttp#MAX_REPLY_BYTES}: a
   * chunked reply one byte under the limit, sent as a chunk of all but one of its bytes and then a
   * chunk of one, grew it from the first chunk's size to twice that, nearly twice the limit, for
   * the last byte. It now stops at the limit. Observed as the bytes this thread allocates (the
   * JDK's count, exact for the thread, no heuristic), against the same bytes sent as one chunk: the
   * split reply may cost one more buffer of at most the limit, not one of twice it.
   */
  @Test
  void aChunkedReplyJustUnderTheLimit_neverGrowsItsBufferPastTheLimit() throws Exception {
    int cap = UpstreamHttp.MAX_REPLY_BYTES;
    String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    String data = "x".repeat(cap - 2);
    String whole = head + Integer.toHexString(cap - 1) + "\r\n" + data + "y\r\n0\r\n\r\n";
    String split = head + Integer.toHexString(cap - 2) + "\r\n" + data + "\r\n1\r\ny\r\n0\r\n\r\n";
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] allocated = new long[2];
    // The whole reply first, so that what the first exchange loads is counted against it.
    try (Scripted s = new Scripted(n -> n == 0 ? whole : split)) {
      KeepAliveHttp http = s.client();
      for (int i = 0; i < 2; i++) {
        long before = threads.getCurrentThreadAllocatedBytes();
        UpstreamHttp.Answer answer = http.post(BODY, SECONDS);
        allocated[i] = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(answer.body()).hasSize(cap - 1);
      }
    }
    assertThat(allocated[1] - allocated[0])
        .as("bytes allocated reading the split reply beyond the whole one (limit %d)", cap)
        .isLessThan(cap + cap / 4);
  }

  /**
   * Regression: the chunk-size lines of a whole reply counted against one 64 KiB head budget, so a
   * reply written in many small chunks (an upstream flushing each few bytes; 5 bytes of framing a
   * one-byte chunk) failed past about 13 000 chunks, far below the body's own limit. Each line is
   * bounded alone; a line over its bound still fails.
   */
  @Test
  void chunkedReplyOfManySmallChunks_isReadWhole_butAnOverlongChunkLineFails() throws Exception {
    String json = "{\"a\":\"" + "x".repeat(40_000) + "\"}";
    StringBuilder chunks =
        new StringBuilder("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (char c : json.toCharArray()) {
      chunks.append("1\r\n").append(c).append("\r\n");
    }
    chunks.append("0\r\n\r\n");
    try (Scripted s = new Scripted(n -> chunks.toString())) {
      KeepAliveHttp http = s.client();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo(json);
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo(json);
      assertThat(s.connections.get()).isEqualTo(1);
    }
    String overlong =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;x="
            + "e".repeat(KeepAliveHttp.MAX_CHUNK_LINE_BYTES)
            + "\r\n{\r\n0\r\n\r\n";
    try (Scripted s = new Scripted(n -> overlong)) {
      assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("over " + KeepAliveHttp.MAX_CHUNK_LINE_BYTES + " bytes");
    }
  }

  /**
   * Regression: a chunk size was read with {@code Long.parseLong}, which takes a sign, and added to
   * the bytes read so far before the body's bound was checked. A size of {@code 7fffffffffffffff}
   * after a first chunk wrapped that sum negative, passed the bound, read nothing and took a byte
   * back off the body, which was served short; "+2" was read as 2 and "-0" as the last chunk. Each
   * is refused now, while sizes as RFC 9112 writes them (leading zeros, either case, extensions,
   * trailers) are still read.
   */
  @Test
  void chunkSizes_areHexDigitsWithinTheBodysBound() throws Exception {
    String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    String wrapping = head + "2\r\n{}\r\n7fffffffffffffff\r\n\r\n0\r\n\r\n";
    String huge = head + "2\r\n{}\r\n" + "f".repeat(40) + "\r\n";
    // A size that only overflows added to the 16 bytes read: it was cast to -16 and an empty 200.
    String pastRead = head + "10\r\n0123456789abcdef\r\n7ffffffffffffff0\r\n\r\n0\r\n\r\n";
    for (String reply : List.of(wrapping, huge, pastRead)) {
      try (Scripted s = new Scripted(n -> reply)) {
        assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("larger than " + UpstreamHttp.MAX_REPLY_BYTES);
      }
    }
    for (String size : List.of("+2", "-2", "0x2", " ", "2 2")) {
      String reply = head + size + "\r\n{}\r\n0\r\n\r\n";
      try (Scripted s = new Scripted(n -> reply)) {
        assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
            .as(size)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("malformed chunk size");
      }
    }
    String lenient =
        head
            + "0000000000000000000002 ;name=\"v\"\r\n{}\r\n0B\r\n\"a\":\"bcdef\"\r\n"
            + "000\r\nX-Trailer: 1\r\n\r\n";
    try (Scripted s = new Scripted(n -> lenient)) {
      assertThat(text(s.client().post(BODY, SECONDS))).isEqualTo("{}\"a\":\"bcdef\"");
    }
  }

  /**
   * A signed chunk size or length, which {@code Long.parseLong} took: "-0" ended a chunked reply
   * there (a 200 with what came before it), "+5" framed a body other readers refuse to frame.
   */
  @Test
  void aSignedChunkSizeOrLength_fails() throws Exception {
    for (String reply :
        List.of(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n-0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+2\r\n{}\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}")) {
      try (Scripted s = new Scripted(n -> reply)) {
        assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
            .as(reply)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("the upstream sent");
      }
    }
  }

  /**
   * A slow upstream whose bytes come one per read: a line's CR in one read and its LF in the next
   * is still one line end, so the blank line ending the head, and each chunk's own CR LF, are read
   * as such.
   */
  @Test
  void replyArrivingOneByteAtATime_isReadAsTheSameReply() throws Exception {
    String chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
    try (Scripted s =
        new Scripted(
            new Script() {
              @Override
              public String reply(int n) {
                return n % 2 == 0 ? ok("{\"n\":" + n + "}") : chunked;
              }

              @Override
              public boolean byteByByte() {
                return true;
              }
            })) {
      KeepAliveHttp http = s.client();
      for (int n = 0; n < 4; n += 2) {
        assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"n\":" + n + "}");
        assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"a\":1}");
      }
      assertThat(s.connections.get()).isEqualTo(1);
    }
  }

  /**
   * An upstream that sends more than its Content-Length said, after the reply was read (a short
   * length, or a slow upstream whose extra bytes come in a later packet): the pooled connection
   * then holds bytes no request asked for. Reusing it would hand them to the next request, so one
   * caller would be answered with what the upstream wrote after another's reply.
   */
  @Test
  void bytesArrivingOnAnIdleConnection_areNeverReadAsTheNextReply() throws Exception {
    try (Scripted s = new Scripted(n -> ok("{\"n\":" + n + "}"))) {
      KeepAliveHttp http = s.client();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"n\":0}");
      OutputStream late = s.open.get(0).getOutputStream();
      late.write(ok("{\"forged\":1}").getBytes(StandardCharsets.ISO_8859_1));
      late.flush();
      assertThat(text(http.post(BODY, SECONDS))).isEqualTo("{\"n\":1}");
      assertThat(s.connections.get())
          .as("the connection holding stray bytes is closed")
          .isEqualTo(2);
    }
  }

  @Test
  void upstreamThatNeverAnswers_failsAtTheTimeout() throws Exception {
    try (Scripted s = new Scripted(n -> null)) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> s.client().post(BODY, Duration.ofMillis(300)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no reply within the timeout");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void replyStalledMidBody_failsAtTheTimeout_withoutARetry_andTheNextPostUsesANewConnection()
      throws Exception {
    try (Scripted s =
        new Scripted(
            n ->
                n == 0
                    ? "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\""
                    : ok("{\"n\":" + n + "}"))) {
      KeepAliveHttp client = s.client();
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> client.post(BODY, Duration.ofMillis(300)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no reply within the timeout");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      assertThat(s.requests.get()).isEqualTo(1);
      assertThat(text(client.post(BODY, SECONDS))).isEqualTo("{\"n\":1}");
      assertThat(s.connections.get()).isEqualTo(2);
    }
  }

  @Test
  void anEarlierDeadline_isKept_whileALaterExchangeWaits() throws Exception {
    try (ExecutorService pool = Executors.newCachedThreadPool();
        Scripted s = new Scripted(n -> null)) {
      KeepAliveHttp client = s.client();
      CompletableFuture<UpstreamHttp.Answer> later =
          CompletableFuture.supplyAsync(() -> post(client, Duration.ofSeconds(60)), pool);
      while (s.requests.get() < 1) {
        Thread.sleep(5);
      }
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> client.post(BODY, Duration.ofMillis(300)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no reply within the timeout");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      assertThat(later).isNotDone();
    }
  }

  @Test
  void stalledExchanges_eachFailAtTheirOwnDeadline() throws Exception {
    try (ExecutorService pool = Executors.newCachedThreadPool();
        Scripted s = new Scripted(n -> null)) {
      KeepAliveHttp client = s.client();
      long t0 = System.nanoTime();
      CompletableFuture<Long> first = failedAfter(client, Duration.ofMillis(300), t0, pool);
      CompletableFuture<Long> second = failedAfter(client, Duration.ofMillis(900), t0, pool);

      assertThat(Duration.ofNanos(first.get(10, TimeUnit.SECONDS)))
          .isLessThan(Duration.ofSeconds(5));
      assertThat(Duration.ofNanos(second.get(10, TimeUnit.SECONDS)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(900))
          .isLessThan(Duration.ofSeconds(5));
    }
  }

  /** Posts with {@code timeout}; completes with the nanoseconds from {@code t0} to the timeout. */
  private static CompletableFuture<Long> failedAfter(
      KeepAliveHttp client, Duration timeout, long t0, ExecutorService pool) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            client.post(BODY, timeout);
            throw new AssertionError("answered");
          } catch (IOException e) {
            assertThat(e).hasMessageContaining("no reply within the timeout");
            return System.nanoTime() - t0;
          }
        },
        pool);
  }

  private static UpstreamHttp.Answer post(KeepAliveHttp client, Duration timeout) {
    try {
      return client.post(BODY, timeout);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void headOverTheLimit_andMalformedReplies_fail() throws Exception {
    String bigHead =
        "HTTP/1.1 200 OK\r\nX-Pad: " + "p".repeat(KeepAliveHttp.MAX_HEAD_BYTES) + "\r\n\r\n";
    for (String reply :
        List.of(
            bigHead,
            "SMTP ready\r\n\r\n",
            "HTTP/1.1 2x0 OK\r\n\r\n",
            "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) {
      try (Scripted s = new Scripted(n -> reply)) {
        assertThatThrownBy(() -> s.client().post(BODY, SECONDS))
            .as(reply.length() > 60 ? reply.substring(0, 60) : reply)
            .isInstanceOf(IOException.class);
      }
    }
  }

  @Test
  void onlyPlainHttpUris_areServed() {
    assertThat(KeepAliveHttp.serves(URI.create("http://127.0.0.1:8000/v1/chat/completions")))
        .isTrue();
    assertThat(KeepAliveHttp.serves(URI.create("https://api.example/v1/chat/completions")))
        .isFalse();
    assertThatThrownBy(
            () -> new KeepAliveHttp(URI.create("https://api.example/v1"), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
