package org.meshjava.openai;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback upstream that answers each connection with raw bytes, on its own thread, as its {@link
 * Reply} says: for replies no well-behaved server library would send (interim heads without end, a
 * coding that was not asked for, bytes that are no UTF-8). It reads one request per connection (its
 * head and its {@code Content-Length} body) and keeps the head; a {@linkplain #keptAlive
 * kept-alive} one reads more on the same connection, each answered as its number says.
 */
final class RawUpstream implements AutoCloseable {
  /** What the upstream writes after reading a request. */
  interface Reply {
    void write(OutputStream out) throws Exception;
  }

  /**
   * What a kept-alive upstream writes after reading request {@code n} (from 0, of any connection).
   */
  interface Numbered {
    void write(int n, OutputStream out) throws Exception;
  }

  /** The head of each request read, in order, as ISO-8859-1 text with its CR LF line ends. */
  final List<String> heads = new CopyOnWriteArrayList<>();

  /** The connections accepted so far. */
  final AtomicInteger connections = new AtomicInteger();

  private final AtomicInteger requests = new AtomicInteger();
  private final ServerSocket listener;

  RawUpstream(Reply reply) throws IOException {
    this(new ServerSocket(0, 16, InetAddress.getLoopbackAddress()), reply);
  }

  /** An upstream on {@code listener}, which may be a TLS one ({@link #base} then says https). */
  RawUpstream(ServerSocket listener, Reply reply) {
    this(listener, (n, out) -> reply.write(out), false);
  }

  /**
   * An upstream on {@code listener} that reads request after request on each connection, until the
   * client closes it, and answers each as {@code reply} says: for a test of whether a connection is
   * used again.
   */
  static RawUpstream keptAlive(ServerSocket listener, Numbered reply) {
    return new RawUpstream(listener, reply, true);
  }

  private RawUpstream(ServerSocket listener, Numbered reply, boolean keepAlive) {
    this.listener = listener;
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket s = listener.accept();
                  connections.incrementAndGet();
                  Thread.ofPlatform().daemon().start(() -> answer(s, reply, keepAlive));
                } catch (IOException e) {
                  return;
                }
              }
            });
  }

  private void answer(Socket s, Numbered reply, boolean keepAlive) {
    try (s) {
      do {
        String head = readRequest(s.getInputStream());
        if (keepAlive && !head.endsWith("\r\n\r\n")) {
          return; // the client closed the connection
        }
        heads.add(head);
        reply.write(requests.getAndIncrement(), s.getOutputStream());
        s.getOutputStream().flush();
      } while (keepAlive);
    } catch (Exception e) {
      // The client gave up (the point of many tests): nothing more to send.
    }
  }

  /** Reads a request's head and its Content-Length body; returns the head. */
  static String readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return head.toString();
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
    return head.toString();
  }

  /** {@code data} as one chunk of a chunked body. */
  static byte[] chunk(byte[] data) {
    byte[] size = (Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[size.length + data.length + 2];
    System.arraycopy(size, 0, out, 0, size.length);
    System.arraycopy(data, 0, out, size.length, data.length);
    out[out.length - 2] = '\r';
    out[out.length - 1] = '\n';
    return out;
  }

  /** {@code data}'s UTF-8 as one chunk of a chunked body. */
  static byte[] chunk(String data) {
    return chunk(data.getBytes(StandardCharsets.UTF_8));
  }

  /** The upstream's OpenAI base URI. */
  URI base() {
    String scheme = listener instanceof javax.net.ssl.SSLServerSocket ? "https" : "http";
    return URI.create(scheme + "://127.0.0.1:" + listener.getLocalPort() + "/v1");
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
