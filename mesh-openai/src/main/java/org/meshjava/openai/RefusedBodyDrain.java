package org.meshjava.openai;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * What a client still sends after its body was refused with the connection closed (413, a refusal
 * decided from the head, 429 {@code overloaded}), read and thrown away for a while before the
 * connection closes (SPEC.md 70, "Request framing"). Closed with unread bytes in its receive
 * buffer, a TCP socket answers the client with a reset, and a client that sends its whole body
 * before it reads (Python's {@code http.client}) then fails its send with a broken pipe and never
 * reads the 413 waiting for it. Read on for a bounded time and a bounded number of bytes, such a
 * client finishes sending and reads the 413; one that sends more than the byte bound, or is still
 * sending at the time bound, is cut as before. No thread waits meanwhile: each read is taken when
 * the selector says bytes are there (on a pool thread, as Jetty runs a blocking callback), and a
 * timer ends the wait. The read buffer is taken from the connector's pool for each read and given
 * back before it waits again: held for the whole drain, 16 KiB per refused connection would stay on
 * the heap for up to the time bound, and a flood of refused connections (each up to {@code
 * max_connections}) would pin that many while the server is already short of memory (a 429 {@code
 * overloaded}). Each instance drains one connection; its methods may be called from the selector's
 * and the timer's threads at once.
 */
final class RefusedBodyDrain implements Callback {
  private final EndPoint endPoint;
  private final long maxBytes;
  private final Callback done;
  private final AtomicBoolean finished = new AtomicBoolean();
  private final ByteBufferPool pool;
  // Touched only by drain(), which the endpoint's fill interest runs once at a time.
  private long read;
  private volatile Scheduler.@Nullable Task timer;

  private RefusedBodyDrain(EndPoint endPoint, ByteBufferPool pool, long maxBytes, Callback done) {
    this.endPoint = endPoint;
    this.pool = pool;
    this.maxBytes = maxBytes;
    this.done = done;
  }

  /**
   * The bounds of a drain: at most {@code maxBytes} read, for at most {@code maxTime} after the
   * refusal was written. {@code maxBytes} 0 drains nothing (the connection closes at once).
   */
  record Bounds(long maxBytes, Duration maxTime) {
    Bounds {
      if (maxBytes < 0) {
        throw new IllegalArgumentException("maxBytes must be 0 or more, not " + maxBytes);
      }
      if (maxTime.isNegative() || maxTime.isZero()) {
        throw new IllegalArgumentException("maxTime must be positive, not " + maxTime);
      }
    }
  }

  /**
   * Drains {@code endPoint} within {@code bounds}, then succeeds {@code done} (which lets Jetty
   * close the connection): at the end of the body stream, at the byte bound, at the time bound or
   * when a read fails, whichever comes first. Each read's buffer comes from {@code pool}.
   */
  static void start(
      EndPoint endPoint, Scheduler scheduler, ByteBufferPool pool, Bounds bounds, Callback done) {
    if (bounds.maxBytes() == 0 || !endPoint.isOpen()) {
      done.succeeded();
      return;
    }
    RefusedBodyDrain d = new RefusedBodyDrain(endPoint, pool, bounds.maxBytes(), done);
    d.timer = scheduler.schedule(d::finish, bounds.maxTime().toNanos(), TimeUnit.NANOSECONDS);
    d.drain();
  }

  private void drain() {
    RetainableByteBuffer held = pool.acquire(16 * 1024, false);
    ByteBuffer buffer = held.getByteBuffer();
    try {
      while (!finished.get()) {
        BufferUtil.clear(buffer);
        int n = endPoint.fill(buffer);
        if (n < 0) {
          finish();
          return;
        }
        if (n == 0) {
          // Another reader already waits on this connection: it is not ours to drain.
          if (!endPoint.tryFillInterested(this)) {
            finish();
          }
          return;
        }
        read += n;
        if (read >= maxBytes) {
          finish();
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      // The client reset or the connection closed: nothing left to drain.
      finish();
    } finally {
      held.release();
    }
  }

  private void finish() {
    if (finished.compareAndSet(false, true)) {
      Scheduler.Task t = timer;
      if (t != null) {
        t.cancel();
      }
      done.succeeded();
    }
  }

  @Override
  public void succeeded() {
    drain();
  }

  @Override
  public void failed(Throwable x) {
    finish();
  }
}
