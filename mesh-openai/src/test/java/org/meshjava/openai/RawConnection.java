package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One connection to a fixture's server on which a test writes the request bytes itself: for framing
 * that the JDK's client will not send (a transfer coding, {@code Expect: 100-continue} without the
 * body, a preface from another protocol). Reads are bounded, so a server that never answers fails
 * the test instead of hanging it.
 */
final class RawConnection implements AutoCloseable {
  private final Socket socket = new Socket();
  private final InputStream in;

  RawConnection(Fixture f) throws IOException {
    this(f.server.port());
  }

  /** A connection to {@code port} on 127.0.0.1 (another listener of a fixture's server). */
  RawConnection(int port) throws IOException {
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(5_000);
    in = socket.getInputStream();
  }

  /**
   * A plain socket to {@code port} on 127.0.0.1, reads timing out after {@code readTimeoutMillis},
   * for a test that writes and reads its bytes itself (several connections at once, a trickle).
   */
  static Socket socket(int port, int readTimeoutMillis) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    s.setSoTimeout(readTimeoutMillis);
    return s;
  }

  /** Writes {@code bytes} as they are and flushes them. */
  RawConnection send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return this;
  }

  /** Writes {@code text} as ISO-8859-1 bytes (header lines are) and flushes it. */
  RawConnection send(String text) throws IOException {
    return send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** A response as it came: its status line, header section and body. */
  record Response(String statusLine, String head, String body) {
    int status() {
      return Integer.parseInt(statusLine.split(" ")[1]);
    }

    /** The value of header {@code name}, when present (the first one). */
    Optional<String> header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase(name)) {
          return Optional.of(line.substring(colon + 1).strip());
        }
      }
      return Optional.empty();
    }

    /** As the fixture's client would have seen it, for its error assertions. */
    Fixture.Answer answer() {
      return new Fixture.Answer(status(), header("Content-Type").orElse(""), body);
    }
  }

  /**
   * Reads the next response, interim ones ({@code 100 Continue}) included, with its body framed by
   * {@code Content-Length} (none: no body).
   */
  Response read() throws IOException {
    return read(in);
  }

  /**
   * The next response if one begins within {@code millis}; empty when the server sent nothing by
   * then (one that begins and then stalls fails the read as {@link #read()} does).
   */
  Optional<Response> readWithin(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      return Optional.of(read());
    } catch (SocketTimeoutException nothingSent) {
      return Optional.empty();
    } finally {
      socket.setSoTimeout(5_000);
    }
  }

  /** Reads the head of the next response, and no body (the answer to a HEAD has none). */
  Response readHead() throws IOException {
    return head(in);
  }

  /** The head of the next response on {@code in}, up to and with its blank line. */
  private static Response head(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      assertThat(b).as("the connection closed inside a response's head: %s", head).isNotEqualTo(-1);
      head.write(b);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    return new Response(text.substring(0, text.indexOf("\r\n")), text, "");
  }

  /** {@link #read()} from any connection's input. */
  static Response read(InputStream in) throws IOException {
    Response headOnly = head(in);
    String statusLine = headOnly.statusLine();
    String text = headOnly.head();
    int length = headOnly.header("Content-Length").map(Integer::parseInt).orElse(0);
    byte[] body = in.readNBytes(length);
    assertThat(body).as("the body ended early").hasSize(length);
    return new Response(statusLine, text, new String(body, StandardCharsets.UTF_8));
  }

  /** Whether the server closes the connection (rather than send more) within {@code millis}. */
  boolean closedWithin(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** A request head for {@code POST path} ending with {@code fields} (each line without CRLF). */
  static String post(String path, String... fields) {
    StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (String field : fields) {
      head.append(field).append("\r\n");
    }
    return head.append("\r\n").toString();
  }

  /** {@code bytes} as one chunk and the last chunk, chunked transfer coding's framing. */
  static byte[] chunked(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(
        (Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(bytes);
    out.writeBytes("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }
}
