package org.meshjava.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.crypto.SigningKey;

/**
 * The floor under a proxied serve, for {@link HttpServeBenchmark}'s {@code floor} scenarios: a
 * Jetty server set up as {@code OpenAiServer}'s is (a blocking handler on a queued pool, one
 * selector), whose handler reads the request's body, sends it to the upstream over a keep-alive
 * blocking socket of its thread (as {@code KeepAliveHttp} does: one write, a {@code
 * Content-Length}-framed read) and answers with a body as long as a proxied serve's reply (the
 * upstream's reply padded); optionally it also signs a receipt-sized message with Ed25519 ({@link
 * SigningKey#sign}, the seal's call). No JSON, no steward, no receipt: what is left is the two HTTP
 * exchanges and the signature, which mesh-bench/README.md argues are the floor of a proxied serve;
 * these scenarios measure that floor instead of adding up its parts from profiles.
 */
final class FloorProxy {
  /** The length of a proxied serve's reply body (a chat completion with {@code usage.energy}). */
  static final int REPLY_BYTES = 3010;

  /** The length of the message a serve signs (a receipt's COSE signature structure). */
  static final int SIGNED_BYTES = 700;

  private FloorProxy() {}

  /**
   * Starts the floor proxy on an ephemeral loopback port in front of {@code upstreamPort}; with
   * {@code sign}, one Ed25519 signature per request; with {@code inline}, the handler declares
   * itself non-blocking, so Jetty runs it on the selector's thread with no hand-off to the pool,
   * and it forwards the request there, blocking that thread (for the CPU figure only: one selector
   * then serves one request at a time); with {@code virtual}, the blocking handler runs on a
   * virtual thread of its own per request (the pool's virtual-thread executor), with no hand-off
   * between platform threads; with {@code noReserved}, the pool keeps no reserved threads, so the
   * selector queues each request to a pool thread rather than running it itself once a reserved
   * thread has taken over selecting.
   */
  static Server start(
      int upstreamPort, boolean sign, boolean inline, boolean virtual, boolean noReserved)
      throws Exception {
    // As many threads as OpenAiServer gives the benchmark's bound of 1024 serves.
    Server server = HttpServeBenchmark.loopbackServer("floor-proxy", 2 * 1024 + 8);
    if (noReserved) {
      ((QueuedThreadPool) server.getThreadPool()).setReservedThreads(0);
    }
    if (virtual) {
      ((QueuedThreadPool) server.getThreadPool())
          .setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("floor-v"));
    }
    SigningKey key = SigningKey.generate();
    byte[] head =
        ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:"
                + upstreamPort
                + "\r\nContent-Type: application/json\r\nContent-Length: ")
            .getBytes(StandardCharsets.US_ASCII);
    // Pooled, not one per thread: a virtual thread lives for one request.
    ConcurrentLinkedDeque<Upstream> upstreams = new ConcurrentLinkedDeque<>();
    server.setHandler(
        inline
            ? new Handler.Abstract.NonBlocking() {
              @Override
              public boolean handle(Request request, Response response, Callback callback)
                  throws Exception {
                // The benchmark's client sends the body with the head, so it is at hand; a client
                // that sends it apart is answered once it arrives.
                new Runnable() {
                  @Override
                  public void run() {
                    byte[] body = bodyAtHand(request);
                    if (body == null) {
                      request.demand(this);
                      return;
                    }
                    try {
                      answer(
                          exchange(upstreams, upstreamPort, head, body),
                          sign,
                          key,
                          response,
                          callback);
                    } catch (IOException | RuntimeException e) {
                      callback.failed(e);
                    }
                  }
                }.run();
                return true;
              }
            }
            : new Handler.Abstract() {
              @Override
              public boolean handle(Request request, Response response, Callback callback)
                  throws Exception {
                // Read as the inline handler reads, so that the two differ only in the thread.
                byte[] body = bodyAtHand(request);
                if (body == null) {
                  ByteBuffer in = Content.Source.asByteBuffer(request);
                  body = new byte[in.remaining()];
                  in.get(body);
                }
                answer(
                    exchange(upstreams, upstreamPort, head, body), sign, key, response, callback);
                return true;
              }
            });
    server.start();
    return server;
  }

  /** One exchange on a pooled connection (a new one when none is idle). */
  private static byte[] exchange(
      ConcurrentLinkedDeque<Upstream> upstreams, int port, byte[] head, byte[] body)
      throws IOException {
    Upstream u = upstreams.pollFirst();
    if (u == null) {
      u = new Upstream(port, head);
    }
    byte[] reply = u.exchange(body);
    upstreams.addFirst(u);
    return reply;
  }

  /**
   * The body's first chunk (here the whole body, ~90 bytes sent with the head), or null if none has
   * arrived.
   */
  private static byte @Nullable [] bodyAtHand(Request request) {
    Content.Chunk chunk = request.read();
    if (chunk == null) {
      return null;
    }
    if (Content.Chunk.isFailure(chunk)) {
      throw new IllegalStateException("the request failed", chunk.getFailure());
    }
    byte[] body = new byte[chunk.remaining()];
    chunk.get(body, 0, body.length);
    chunk.release();
    return body;
  }

  /** Answers with the upstream's reply padded to {@link #REPLY_BYTES}, signed first if asked. */
  private static void answer(
      byte[] reply, boolean sign, SigningKey key, Response response, Callback callback) {
    byte[] out = Arrays.copyOf(reply, Math.max(REPLY_BYTES, reply.length));
    Arrays.fill(out, reply.length, out.length, (byte) ' ');
    if (sign) {
      byte[] message = Arrays.copyOf(out, SIGNED_BYTES);
      long n = System.nanoTime();
      for (int i = 0; i < 8; i++) {
        message[SIGNED_BYTES - 1 - i] = (byte) (n >>> (8 * i));
      }
      key.sign(message);
    }
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, out.length);
    response.write(true, ByteBuffer.wrap(out), callback);
  }

  /** One thread's keep-alive connection to the upstream. */
  private static final class Upstream {
    private final byte[] head;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buffer = new byte[16 * 1024];

    Upstream(int port, byte[] head) {
      this.head = head;
      try {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Sends {@code body} as a chat completion request, reads the whole reply, returns its body. */
    byte[] exchange(byte[] body) throws IOException {
      byte[] length = (body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
      byte[] request = new byte[head.length + length.length + body.length];
      System.arraycopy(head, 0, request, 0, head.length);
      System.arraycopy(length, 0, request, head.length, length.length);
      System.arraycopy(body, 0, request, head.length + length.length, body.length);
      out.write(request);
      int status = HttpServeBenchmark.Client.readResponse(in, buffer);
      if (status != 200) {
        throw new IOException("the upstream answered " + status);
      }
      // The reply's bytes were read; the fake upstream's reply is always the same.
      return HttpServeBenchmark.UPSTREAM_REPLY;
    }
  }
}
