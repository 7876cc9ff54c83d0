package org.meshjava.openai;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery timeout of one reply: how long, in all, its writes may wait for the client to take
 * them before the connection is closed (SPEC.md 70, "Slow clients").
 *
 * <p>Every write of a reply the API answers goes through here, a whole JSON reply's single write as
 * a stream's many. Jetty's own refusals, which {@code JsonErrors} writes (a request it could not
 * parse, a head over its limits, a failure thrown past the API), do not: each is under a kilobyte,
 * which a socket's send buffer takes at once, so the connection's idle timeout alone bounds one
 * that waits behind replies its client has not read. Each write is handed to Jetty without
 * blocking; one the socket takes at once arms no timer (it costs the reply's budget only the
 * microseconds the write itself took). One that has to wait is given what is left of the reply's
 * delivery timeout, on Jetty's scheduler: when that runs out before the client has taken it, the
 * connection is closed, which fails the write. What each write waited is taken from what is left,
 * so a client that takes each piece just in time (a few bytes before every idle or write timeout)
 * is cut once the waits add up.
 *
 * <p>Without it a whole reply, written without holding a thread, was held (its bytes and its
 * connection) for as long as a client that reads a few bytes before each idle timeout liked.
 *
 * <p>A reply's writes follow one another (the next is made once the last completed); completions
 * may run on Jetty's threads, so what is left is kept atomically.
 */
final class Delivery {
  private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);

  private final Response response;
  private final EndPoint endPoint;
  private final Scheduler scheduler;
  private final Duration timeout;

  /** What the client may still keep this reply's writes waiting, in nanoseconds. */
  private final AtomicLong waitLeftNanos;

  Delivery(Request request, Response response, Duration timeout) {
    this.response = response;
    this.endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    this.scheduler = request.getComponents().getScheduler();
    this.timeout = timeout;
    this.waitLeftNanos = new AtomicLong(timeout.toNanos());
  }

  /**
   * Writes {@code bytes} without blocking; {@code callback} completes once the client has taken
   * them, or fails once the connection is closed, by the client or because the reply's writes have
   * waited the delivery timeout in all.
   */
  void write(boolean last, ByteBuffer bytes, Callback callback) {
    Write write = new Write(callback);
    response.write(last, bytes, write);
    write.bound();
  }

  /** Closes the connection, failing the write under way, for a client that stopped reading. */
  void close(Throwable cause) {
    endPoint.close(cause);
  }

  /** One write, and the timer that closes its connection if it waits longer than is left. */
  private final class Write implements Callback, Runnable {
    private final Callback callback;
    private final long began = System.nanoTime();
    private volatile boolean done;
    private volatile Scheduler.@Nullable Task expiry;

    Write(Callback callback) {
      this.callback = callback;
    }

    /** Arms the timer, unless the write is done already (the socket took it at once). */
    void bound() {
      if (done) {
        return;
      }
      long left = waitLeftNanos.get() - (System.nanoTime() - began);
      if (left <= 0) {
        run();
        return;
      }
      Scheduler.Task task = scheduler.schedule(this, left, TimeUnit.NANOSECONDS);
      expiry = task;
      if (done) { // completed while the timer was being armed
        task.cancel();
      }
    }

    /** The delivery timeout ran out with this write still waiting. */
    @Override
    public void run() {
      if (!done) {
        LOG.debug("the client of a reply kept its writes waiting {} in all; closing it", timeout);
        close(new TimeoutException("delivery timeout " + timeout + " elapsed"));
      }
    }

    @Override
    public void succeeded() {
      finish();
      callback.succeeded();
    }

    @Override
    public void failed(Throwable x) {
      finish();
      callback.failed(x);
    }

    @Override
    public InvocationType getInvocationType() {
      return callback.getInvocationType();
    }

    private void finish() {
      done = true;
      Scheduler.Task task = expiry;
      if (task != null) {
        task.cancel();
      }
      waitLeftNanos.addAndGet(-(System.nanoTime() - began));
    }
  }
}
