package org.meshjava.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * How {@link UpstreamEngine} posts a whole (not streamed) request to a plain-text {@code http://}
 * upstream: a blocking HTTP/1.1 exchange on the serving thread, over keep-alive sockets pooled for
 * that one upstream. {@code https} upstreams and streamed replies go through {@link UpstreamHttp}
 * (Jetty's client) instead.
 *
 * <p>Why not Jetty's client here too: its asynchronous exchange (a selector wake-up to register for
 * the reply, the reply parsed on a pool thread, a future completed and the serving thread woken)
 * was about a third of a proxied serve's CPU samples at c=64, while the serving thread only waited;
 * here the serving thread writes the request and reads the reply itself. See mesh-bench/README.md
 * for what it measured.
 *
 * <p>What it reads: a status line and headers (at most {@value #MAX_HEAD_BYTES} bytes, interim
 * {@code 1xx} answers skipped, at most {@value #MAX_INTERIM_HEADS} of them; a {@code 101}, which
 * switches the connection away from HTTP, is a reply without a body), then a body framed by {@code
 * Content-Length}, by {@code Transfer-Encoding: chunked}, or by the end of the connection; a body
 * over {@link UpstreamHttp#MAX_REPLY_BYTES} fails the exchange. The whole exchange, connecting
 * included, must end within the caller's timeout (kept by {@link ExchangeDeadlines}, which closes
 * the socket of an exchange past its deadline: the sockets carry no read timeout, so that each read
 * is one blocking system call). A connection goes back to the pool only after a whole HTTP/1.1
 * reply framed by length or chunks without {@code Connection: close}; one idle for over {@value
 * #IDLE_SECONDS} s, or holding bytes that arrived while it was idle, is closed instead of used. A
 * pooled connection that fails before any byte of the reply arrives (the upstream closed it while
 * idle, the usual race of keep-alive) is closed and the request sent once more on a new one; a new
 * connection is never retried.
 *
 * <p>Thread-safe: a connection is used by one exchange at a time.
 */
final class KeepAliveHttp {
  /** The most bytes of status line and headers read before the body. */
  static final int MAX_HEAD_BYTES = 64 << 10;

  /**
   * The most interim ({@code 1xx}) heads skipped before a reply's own: an upstream sending them
   * without end would otherwise hold the serving thread to the exchange's deadline, each head a few
   * bytes. A server sends one or two (100 Continue, 103 Early Hints).
   */
  static final int MAX_INTERIM_HEADS = 8;

  /** The most bytes of one line framing a chunked body (a chunk's size and its extensions). */
  static final int MAX_CHUNK_LINE_BYTES = 8 << 10;

  private static final String HEAD_TOO_LONG =
      "the reply's head or trailers are over " + MAX_HEAD_BYTES + " bytes";

  private static final String CHUNK_LINE_TOO_LONG =
      "a line framing the reply's chunks is over " + MAX_CHUNK_LINE_BYTES + " bytes";

  /** Idle connections kept per upstream; more are closed when their exchange ends. */
  private static final int MAX_IDLE = 1024;

  private static final long IDLE_SECONDS = 20;

  private final String host;
  private final int port;
  private final byte[] head;
  private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();

  /** Set by {@link #close}: no connection is pooled from then on. */
  private volatile boolean closed;

  /**
   * For posts to {@code uri} (scheme {@code http}), with {@code bearer} as its {@code
   * Authorization} when present.
   */
  KeepAliveHttp(URI uri, Optional<String> bearer) {
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("a plain http URI with a host, not " + uri);
    }
    this.host = uri.getHost();
    this.port = uri.getPort() < 0 ? 80 : uri.getPort();
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    if (uri.getRawQuery() != null) {
      path += "?" + uri.getRawQuery();
    }
    String hostHeader = port == 80 ? host : host + ":" + port;
    this.head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + hostHeader
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                // No Accept-Encoding would accept any coding (RFC 9110 §12.5.3).
                + "Accept-Encoding: identity\r\n"
                + bearer.map(k -> "Authorization: Bearer " + k + "\r\n").orElse("")
                + "Content-Length: ")
            .getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@code uri} is one this client posts to (plain {@code http} with a host). */
  static boolean serves(URI uri) {
    return "http".equals(uri.getScheme()) && uri.getHost() != null;
  }

  /**
   * Posts {@code json} and reads the whole reply, within {@code timeout} from the call.
   *
   * @throws IOException if the exchange failed or ran out of time; its message says which
   */
  UpstreamHttp.Answer post(byte[] json, Duration timeout) throws IOException {
    ExchangeDeadlines.Watch watch =
        ExchangeDeadlines.shared().watch(System.nanoTime() + timeout.toNanos());
    try {
      byte[] request = request(json);
      Connection pooled = pooled();
      if (pooled != null) {
        try {
          return exchange(pooled, request, watch);
        } catch (Stale e) {
          // Closed by the upstream while idle: the request is sent again, once, on a new one.
          pooled.close();
        }
      }
      Connection fresh = open(watch);
      try {
        return exchange(fresh, request, watch);
      } catch (Stale e) {
        throw new UpstreamHttp.Worded(
            "the upstream closed the connection without a reply", e.getCause());
      }
    } finally {
      var unused = watch.finish();
    }
  }

  private byte[] request(byte[] json) {
    byte[] length = (json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(head, head.length + length.length + json.length);
    System.arraycopy(length, 0, out, head.length, length.length);
    System.arraycopy(json, 0, out, head.length + length.length, json.length);
    return out;
  }

  private @Nullable Connection pooled() {
    Connection c;
    while ((c = idle.pollFirst()) != null) {
      idleCount.decrementAndGet();
      if (System.nanoTime() - c.idleSince < IDLE_SECONDS * 1_000_000_000L && c.quiet()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  private void release(Connection c) {
    if (closed) {
      c.close();
      return;
    }
    if (idleCount.incrementAndGet() > MAX_IDLE) {
      idleCount.decrementAndGet();
      c.close();
      return;
    }
    c.idleSince = System.nanoTime();
    idle.addFirst(c);
    if (closed) {
      // A close that emptied the pool before this connection was added.
      closeIdle();
    }
  }

  /**
   * Closes the idle connections, and each connection in use once its exchange ends, rather than
   * pooling it; a post after this still opens a connection of its own.
   */
  void close() {
    closed = true;
    closeIdle();
  }

  private void closeIdle() {
    Connection c;
    while ((c = idle.pollFirst()) != null) {
      idleCount.decrementAndGet();
      c.close();
    }
  }

  /** The connections pooled now; for tests. */
  int idleConnections() {
    return idleCount.get();
  }

  private Connection open(ExchangeDeadlines.Watch watch) throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      watch.attach(s);
      // No connect timeout either: a timed connect leaves the socket non-blocking for good.
      s.connect(new InetSocketAddress(host, port));
      return new Connection(s);
    } catch (IOException e) {
      close(s);
      if (watch.expired()) {
        // No address in the text: it reaches the client (UpstreamEngine.failed).
        throw new UpstreamHttp.Worded("no connection within the timeout", e);
      }
      throw e;
    }
  }

  /**
   * One request and its reply on {@code c}; {@code c} goes back to the pool or is closed.
   *
   * @throws Stale if {@code c} failed before any byte of the reply arrived
   */
  private UpstreamHttp.Answer exchange(Connection c, byte[] request, ExchangeDeadlines.Watch watch)
      throws IOException {
    boolean done = false;
    try {
      watch.attach(c.socket);
      try {
        c.out.write(request);
        c.out.flush();
        c.fill();
      } catch (IOException e) {
        // Past the deadline (the sweeper closed the socket) this is the timeout, below, not a
        // stale connection to retry.
        throw new Stale(e);
      }
      Head h = c.head();
      // 101 is no interim head but the end of HTTP on this connection: a reply (refused).
      for (int interim = 1; h.status >= 100 && h.status < 200 && h.status != 101; interim++) {
        if (interim > MAX_INTERIM_HEADS) {
          throw new UpstreamHttp.Worded(
              "the upstream sent more than " + MAX_INTERIM_HEADS + " interim (1xx) heads");
        }
        h = c.head();
      }
      if (h.status == 200 && h.coding != null) {
        throw UpstreamHttp.coded(h.coding);
      }
      byte[] body = c.body(h);
      if (!watch.finish()) {
        throw new SocketTimeoutException("the deadline passed as the reply ended");
      }
      done = true;
      if (h.reusable && c.pos == c.lim) {
        c.pos = 0;
        c.lim = 0;
        release(c);
      } else {
        c.close();
      }
      return new UpstreamHttp.Answer(h.status, body);
    } catch (IOException e) {
      if (e instanceof SocketTimeoutException || watch.expired()) {
        throw new UpstreamHttp.Worded("no reply within the timeout", e);
      }
      throw e;
    } finally {
      if (!done) {
        c.close();
      }
    }
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Nothing to do about a socket that does not close.
    }
  }

  /** A pooled connection failed before the reply's first byte: safe to send again. */
  private static final class Stale extends IOException {
    private static final long serialVersionUID = 1;

    Stale(IOException cause) {
      super(cause);
    }
  }

  /**
   * A reply's status line and the headers that frame its body; {@code coding} is its content coding
   * other than identity, null if none.
   */
  private record Head(
      int status, long contentLength, boolean chunked, boolean reusable, @Nullable String coding) {}

  /** One socket with its own read buffer. */
  private static final class Connection {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf = new byte[16 << 10];
    private int pos;
    private int lim;
    long idleSince;

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    /**
     * Reads more into the buffer (after what is unread); a blocking read, which the exchange's
     * deadline ends by closing the socket.
     */
    void fill() throws IOException {
      if (pos > 0 && pos == lim) {
        pos = 0;
        lim = 0;
      }
      if (lim == buf.length) {
        System.arraycopy(buf, pos, buf, 0, lim - pos);
        lim -= pos;
        pos = 0;
      }
      int n = in.read(buf, lim, buf.length - lim);
      if (n < 0) {
        throw new EOFException("the upstream closed the connection mid-reply");
      }
      lim += n;
    }

    /**
     * One line without its CR LF (or LF), as ISO-8859-1 text; counts toward {@code budget}, which
     * the caller sets to what it allows (a head's bytes, one chunk line's), and past it fails
     * saying {@code tooLong}.
     */
    String line(int[] budget, String tooLong) throws IOException {
      StringBuilder sb = null;
      while (true) {
        for (int i = pos; i < lim; i++) {
          if (buf[i] == '\n') {
            int start = pos;
            budget[0] -= i + 1 - pos;
            pos = i + 1;
            if (budget[0] < 0) {
              throw new UpstreamHttp.Worded(tooLong);
            }
            if (sb == null) {
              // The whole line in one read (the usual case): one string, without its CR.
              int end = i > start && buf[i - 1] == '\r' ? i - 1 : i;
              return new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
            }
            // The CR is looked for in the whole line: a slow upstream's CR may come in one read and
            // its LF in the next.
            sb.append(new String(buf, start, i - start, StandardCharsets.ISO_8859_1));
            int n = sb.length();
            if (n > 0 && sb.charAt(n - 1) == '\r') {
              sb.setLength(n - 1);
            }
            return sb.toString();
          }
        }
        // No end of line in the buffer: keep what there is and read more.
        if (sb == null) {
          sb = new StringBuilder();
        }
        budget[0] -= lim - pos;
        if (budget[0] < 0) {
          throw new UpstreamHttp.Worded(tooLong);
        }
        sb.append(new String(buf, pos, lim - pos, StandardCharsets.ISO_8859_1));
        pos = lim;
        fill();
      }
    }

    Head head() throws IOException {
      int[] budget = {MAX_HEAD_BYTES};
      String status = line(budget, HEAD_TOO_LONG);
      if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
        throw new UpstreamHttp.Worded(
            "the upstream's reply is not HTTP/1.x: " + abbreviate(status));
      }
      boolean http11 = status.charAt(7) == '1';
      int code;
      try {
        code = Integer.parseInt(status.substring(9, 12));
      } catch (NumberFormatException e) {
        throw new UpstreamHttp.Worded(
            "the upstream's status line is malformed: " + abbreviate(status));
      }
      long length = -1;
      boolean chunked = false;
      boolean close = !http11;
      String coding = null;
      for (String line = line(budget, HEAD_TOO_LONG);
          !line.isEmpty();
          line = line(budget, HEAD_TOO_LONG)) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new UpstreamHttp.Worded(
              "the upstream sent a malformed header: " + abbreviate(line));
        }
        String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = line.substring(colon + 1).trim();
        switch (name) {
          case "content-length" -> {
            try {
              long l = unsignedDigits(value, 10);
              if (l < 0 || (length >= 0 && length != l)) {
                throw new NumberFormatException();
              }
              length = l;
            } catch (NumberFormatException e) {
              throw new UpstreamHttp.Worded(
                  "the upstream sent Content-Length " + abbreviate(value));
            }
          }
          case "transfer-encoding" -> {
            // Chunked alone, once: a request without TE takes no other transfer coding (RFC 9112
            // §6.1), and a coding before chunked (gzip, chunked) would be read as the body's bytes.
            if (chunked || !value.equalsIgnoreCase("chunked")) {
              throw new UpstreamHttp.Worded(
                  "the upstream sent Transfer-Encoding "
                      + abbreviate(value)
                      + " (this client takes chunked alone)");
            }
            chunked = true;
          }
          case "content-encoding" -> {
            if (coding == null) {
              coding = UpstreamHttp.coding(value);
            }
          }
          case "connection" -> {
            String v = value.toLowerCase(Locale.ROOT);
            if (v.contains("close")) {
              close = true;
            } else if (v.contains("keep-alive")) {
              close = close && http11;
            }
          }
          default -> {}
        }
      }
      boolean framed = chunked || length >= 0;
      return new Head(
          code, chunked ? -1 : length, chunked, framed && !close && code != 101, coding);
    }

    byte[] body(Head h) throws IOException {
      // After a 101 the connection speaks another protocol: nothing of it is this reply's body.
      if (h.status == 101 || h.status == 204 || h.status == 304) {
        return new byte[0];
      }
      if (h.chunked) {
        return chunked();
      }
      if (h.contentLength >= 0) {
        if (h.contentLength > UpstreamHttp.MAX_REPLY_BYTES) {
          throw tooLarge();
        }
        byte[] out = new byte[(int) h.contentLength];
        read(out, 0, out.length);
        return out;
      }
      // Framed by the end of the connection.
      byte[] out = new byte[Math.min(lim - pos + 4096, UpstreamHttp.MAX_REPLY_BYTES)];
      int n = 0;
      while (true) {
        if (pos == lim) {
          try {
            fill();
          } catch (EOFException end) {
            return Arrays.copyOf(out, n);
          }
        }
        int take = lim - pos;
        if (n + take > UpstreamHttp.MAX_REPLY_BYTES) {
          throw tooLarge();
        }
        if (n + take > out.length) {
          out = grown(out, n + take);
        }
        System.arraycopy(buf, pos, out, n, take);
        n += take;
        pos = lim;
      }
    }

    /**
     * {@code out} grown to hold {@code needed} bytes, no more than {@link
     * UpstreamHttp#MAX_REPLY_BYTES} (which the caller has checked {@code needed} against): doubled,
     * so that a body read in many pieces is copied a few times only, but capped, as doubling alone
     * grew the buffer of a body just under the limit to nearly twice it.
     */
    private static byte[] grown(byte[] out, int needed) {
      return Arrays.copyOf(
          out, (int) Math.min(UpstreamHttp.MAX_REPLY_BYTES, Math.max(out.length * 2L, needed)));
    }

    /**
     * A chunked body. Its limits are per line and on the data: each chunk-size line, and each line
     * ending a chunk's data, may take {@value #MAX_CHUNK_LINE_BYTES} bytes; the trailers together
     * take at most {@value #MAX_HEAD_BYTES}, as a head; the data at most {@link
     * UpstreamHttp#MAX_REPLY_BYTES}. No bound covers all the framing together: a reply written in
     * many small chunks (an upstream flushing each few bytes) has as many size lines, and the data
     * bound and the exchange's deadline already end a reply that never does.
     */
    private byte[] chunked() throws IOException {
      byte[] out = new byte[1024];
      int n = 0;
      while (true) {
        int[] budget = {MAX_CHUNK_LINE_BYTES};
        long size = chunkSize(line(budget, CHUNK_LINE_TOO_LONG));
        if (size == 0) {
          // Trailers, if any, up to the empty line.
          int[] trailers = {MAX_HEAD_BYTES};
          while (!line(trailers, HEAD_TOO_LONG).isEmpty()) {
            // Skipped: nothing here reads trailers.
          }
          return Arrays.copyOf(out, n);
        }
        // Not n + size: a size near Long.MAX_VALUE would overflow past the check.
        if (size > UpstreamHttp.MAX_REPLY_BYTES - n) {
          throw tooLarge();
        }
        if (n + size > out.length) {
          out = grown(out, (int) (n + size));
        }
        read(out, n, (int) size);
        n += (int) size;
        budget[0] = MAX_CHUNK_LINE_BYTES;
        if (!line(budget, CHUNK_LINE_TOO_LONG).isEmpty()) {
          throw new UpstreamHttp.Worded("the upstream's chunk does not end where its size says");
        }
      }
    }

    /**
     * The size a chunk-size line gives, its extensions ignored: hex digits only, as many leading
     * zeros as sent, either case. A sign ({@code Long.parseLong} takes "+1a" and "-0", the last a
     * body's end) is malformed, and a size over {@link UpstreamHttp#MAX_REPLY_BYTES} fails as too
     * large while it is read, so that no size, however many digits, wraps around a {@code long}
     * (one that did passed the body's bound as a negative sum, and a chunk of {@code
     * 7fffffffffffffff} bytes took a byte back off the body read so far).
     */
    private static long chunkSize(String line) throws IOException {
      int semi = line.indexOf(';');
      String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
      if (hex.isEmpty()) {
        throw new UpstreamHttp.Worded(
            "the upstream sent a malformed chunk size: " + abbreviate(line));
      }
      long size = 0;
      for (int i = 0; i < hex.length(); i++) {
        char c = hex.charAt(i);
        int digit = c < 0x80 ? Character.digit(c, 16) : -1;
        if (digit < 0) {
          throw new UpstreamHttp.Worded(
              "the upstream sent a malformed chunk size: " + abbreviate(line));
        }
        size = size * 16 + digit;
        if (size > UpstreamHttp.MAX_REPLY_BYTES) {
          throw tooLarge();
        }
      }
      return size;
    }

    /**
     * {@code s} as digits of {@code radix} and nothing else, as a length (RFC 9110 §8.6) is
     * written: {@link Long#parseLong} alone also takes a leading {@code +} or {@code -}.
     *
     * @throws NumberFormatException if {@code s} is empty, signed, not such digits, or past a long
     */
    private static long unsignedDigits(String s, int radix) {
      if (s.isEmpty() || s.charAt(0) == '+' || s.charAt(0) == '-') {
        throw new NumberFormatException(s);
      }
      return Long.parseLong(s, radix);
    }

    private void read(byte[] out, int off, int len) throws IOException {
      while (len > 0) {
        if (pos == lim) {
          fill();
        }
        int take = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, out, off, take);
        pos += take;
        off += take;
        len -= take;
      }
    }

    /**
     * Whether nothing arrived since the last reply ended. Bytes on an idle connection were sent
     * past that reply's end (a Content-Length short of its body, a second reply): the next request
     * would read them as its own answer, so such a connection is closed rather than reused.
     */
    boolean quiet() {
      try {
        return pos == lim && in.available() == 0;
      } catch (IOException e) {
        return false;
      }
    }

    void close() {
      KeepAliveHttp.close(socket);
    }
  }

  private static IOException tooLarge() {
    return new UpstreamHttp.Worded(
        "the reply is larger than " + UpstreamHttp.MAX_REPLY_BYTES + " bytes, the most read whole");
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "…";
  }
}
