package org.meshjava.openai;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * A connection's end point with its incoming bytes read by a {@link ChunkSizeWatch} as they are
 * filled, so that a chunk declared past the body limit is refused when its size line arrives, not
 * once its bytes have (SPEC.md 70, "A chunked body is measured as its size line arrives"). Every
 * call goes to the end point it wraps; {@link #fill} reads what it filled too.
 *
 * <p>The handler counts the requests it is handed on the connection ({@link #handling}); a body
 * reader asks to be told ({@link #whenDeclaredTooLarge}) when the request it reads is the one the
 * watch found too large, checked by its count and its method and path.
 *
 * <p>Thread-safe: fills come one at a time on Jetty's threads, requests are handled on others.
 */
final class WatchedEndPoint implements EndPoint, EndPoint.Wrapper {
  /** The request attribute holding a request's ordinal on its connection ({@link #handling}). */
  static final String ORDINAL = "org.meshjava.openai.ordinal";

  private final EndPoint endPoint;
  private final ChunkSizeWatch watch;
  private int handled;
  private @Nullable Waiting waiting;

  /** A body reader waiting to hear that its request declared chunks past the limit. */
  private record Waiting(int ordinal, String method, String path, Runnable refuse) {}

  WatchedEndPoint(EndPoint endPoint, long maxBodyBytes) {
    this.endPoint = endPoint;
    this.watch = new ChunkSizeWatch(maxBodyBytes);
  }

  /** The watched end point {@code request} arrived on, if it arrived on one. */
  static Optional<WatchedEndPoint> of(Request request) {
    return request.getConnectionMetaData().getConnection().getEndPoint()
            instanceof WatchedEndPoint w
        ? Optional.of(w)
        : Optional.empty();
  }

  /** Counts a request handed to the handler; returns its ordinal on the connection, from 1. */
  synchronized int handling() {
    return ++handled;
  }

  /**
   * Runs {@code refuse} once, now or on the thread of a later fill (so it must hand its work to
   * another thread), if request {@code ordinal}, whose request line begins with {@code method} and
   * holds {@code path}, declares chunks past the limit. It replaces what an earlier request asked.
   */
  void whenDeclaredTooLarge(int ordinal, String method, String path, Runnable refuse) {
    Waiting w = new Waiting(ordinal, method, path, refuse);
    boolean now;
    synchronized (this) {
      now = over(w);
      waiting = now ? null : w;
    }
    if (now) {
      refuse.run();
    }
  }

  /** Whether the watch found {@code w}'s request, and no other, declaring past the limit. */
  private boolean over(Waiting w) {
    String line = watch.overRequestLine();
    return watch.overOrdinal() == w.ordinal()
        && line.startsWith(w.method() + " ")
        && line.contains(w.path());
  }

  /** Fills as the wrapped end point does, and has the watch read what was filled. */
  @Override
  public int fill(ByteBuffer buffer) throws IOException {
    int filled = endPoint.fill(buffer);
    if (filled > 0) {
      Waiting told = null;
      synchronized (this) {
        // A fill appends after what the buffer held (compacting it first, when full).
        watch.read(buffer, buffer.limit() - filled, buffer.limit());
        Waiting w = waiting;
        if (w != null && over(w)) {
          told = w;
          waiting = null;
        }
      }
      if (told != null) {
        told.refuse().run();
      }
    }
    return filled;
  }

  @Override
  public EndPoint unwrap() {
    return endPoint;
  }

  @Override
  public SocketAddress getLocalSocketAddress() {
    return endPoint.getLocalSocketAddress();
  }

  @Override
  public SocketAddress getRemoteSocketAddress() {
    return endPoint.getRemoteSocketAddress();
  }

  @Override
  public boolean isOpen() {
    return endPoint.isOpen();
  }

  @Override
  public long getCreatedTimeStamp() {
    return endPoint.getCreatedTimeStamp();
  }

  @Override
  public void shutdownOutput() {
    endPoint.shutdownOutput();
  }

  @Override
  public boolean isOutputShutdown() {
    return endPoint.isOutputShutdown();
  }

  @Override
  public boolean isInputShutdown() {
    return endPoint.isInputShutdown();
  }

  @Override
  public void close(@Nullable Throwable cause) {
    endPoint.close(cause);
  }

  @Override
  public boolean flush(ByteBuffer... buffer) throws IOException {
    return endPoint.flush(buffer);
  }

  @Override
  public Object getTransport() {
    return endPoint.getTransport();
  }

  @Override
  public long getIdleTimeout() {
    return endPoint.getIdleTimeout();
  }

  @Override
  public void setIdleTimeout(long idleTimeout) {
    endPoint.setIdleTimeout(idleTimeout);
  }

  @Override
  public void fillInterested(Callback callback) {
    endPoint.fillInterested(callback);
  }

  @Override
  public boolean tryFillInterested(Callback callback) {
    return endPoint.tryFillInterested(callback);
  }

  @Override
  public boolean isFillInterested() {
    return endPoint.isFillInterested();
  }

  @Override
  public void write(Callback callback, ByteBuffer... buffers) {
    endPoint.write(callback, buffers);
  }

  @Override
  public Callback cancelWrite(Throwable cause) {
    return endPoint.cancelWrite(cause);
  }

  @Override
  public Connection getConnection() {
    return endPoint.getConnection();
  }

  @Override
  public void setConnection(Connection connection) {
    endPoint.setConnection(connection);
  }

  @Override
  public void onOpen() {
    endPoint.onOpen();
  }

  @Override
  public void onClose(@Nullable Throwable cause) {
    endPoint.onClose(cause);
  }

  @Override
  public void upgrade(Connection newConnection) {
    endPoint.upgrade(newConnection);
  }

  @Override
  public @Nullable SslSessionData getSslSessionData() {
    return endPoint.getSslSessionData();
  }

  @Override
  public String toString() {
    return "watched " + endPoint;
  }
}
