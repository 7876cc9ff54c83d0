package org.meshjava.openai;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose next request's headers are still arriving a deadline after they began.
 *
 * <p>Why: Jetty bounds a request's headers by size, not by time, and its idle timeout restarts with
 * every byte. A client that sends a header a byte every few seconds (the "slowloris" attack) keeps
 * its connection for hours, and many such clients keep many. The body has its own deadline ({@link
 * BodyReader}); this is the same bound for the part before it, as Go's {@code ReadHeaderTimeout}.
 *
 * <p>How: a connection is watched only while it handles no request, that is from its opening and
 * from the end of each request. Bytes that arrive then are the head of its next request. Once Jetty
 * has parsed that head, the request reaches {@link #handling}, and the watch stands down until the
 * request ends. A sweep every {@code tick} notes when such bytes were first seen and closes the
 * connection once the deadline has passed since: it is closed between the deadline and the deadline
 * plus two ticks after its head began. There is no request to answer yet, so its socket is closed
 * without a reply. A connection that sends nothing at all is left to the idle timeout.
 *
 * <p>Only the public API of Jetty is used (a connection's byte count and its listener), so this
 * holds on the module path, where Jetty's own connection class is not exported.
 *
 * <p>Thread-safe: connections open and close on Jetty's threads, requests start and end on any, and
 * the sweep runs on the server's scheduler. Started and stopped with the server (a bean of it).
 */
final class HeaderDeadline extends AbstractLifeCycle implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);

  /** The longest pause between sweeps, so that a long deadline is still enforced near its time. */
  private static final long MAX_TICK_MILLIS = 1_000;

  /** The shortest pause between sweeps, so that a tiny deadline (in tests) does not spin. */
  private static final long MIN_TICK_MILLIS = 50;

  private final long deadlineNanos;
  private final long tickMillis;
  private final Scheduler scheduler;
  private final Map<Connection, Watch> watches = new ConcurrentHashMap<>();
  private volatile Scheduler.@Nullable Task next;

  HeaderDeadline(Duration deadline, Scheduler scheduler) {
    this.deadlineNanos = deadline.toNanos();
    this.tickMillis = Math.clamp(deadline.toMillis() / 4, MIN_TICK_MILLIS, MAX_TICK_MILLIS);
    this.scheduler = scheduler;
  }

  @Override
  public void onOpened(Connection connection) {
    watches.put(connection, new Watch(connection.getBytesIn()));
  }

  @Override
  public void onClosed(Connection connection) {
    watches.remove(connection);
  }

  /**
   * Marks {@code request}'s head as complete (Jetty hands a request over once its headers are
   * parsed) and its connection as watched again once the request's exchange ends, however it ends.
   * A request on a connection this does not watch is left alone.
   */
  void handling(Request request) {
    Connection connection = request.getConnectionMetaData().getConnection();
    Watch watch = watches.get(connection);
    if (watch == null) {
      return;
    }
    watch.started();
    request.addHttpStreamWrapper(
        stream ->
            new HttpStream.Wrapper(stream) {
              @Override
              public void succeeded() {
                // Before the exchange completes: the connection may parse its next head at once.
                watch.ended(connection.getBytesIn());
                super.succeeded();
              }

              @Override
              public void failed(Throwable cause) {
                watch.ended(connection.getBytesIn());
                super.failed(cause);
              }
            });
  }

  /** How many connections are watched now; for tests. */
  int watched() {
    return watches.size();
  }

  @Override
  protected void doStart() {
    schedule();
  }

  @Override
  protected void doStop() {
    Scheduler.Task task = next;
    if (task != null) {
      task.cancel();
    }
  }

  private void schedule() {
    try {
      next = scheduler.schedule(this::sweep, tickMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The scheduler stopped with the server: nothing is left to watch.
    }
  }

  private void sweep() {
    if (!isRunning()) {
      return;
    }
    try {
      long now = System.nanoTime();
      watches.forEach(
          (connection, watch) -> {
            if (watch.expired(connection.getBytesIn(), now, deadlineNanos)) {
              LOG.debug(
                  "closing {}: its request headers did not arrive within {} ms",
                  connection,
                  TimeUnit.NANOSECONDS.toMillis(deadlineNanos));
              watches.remove(connection);
              // The socket, not the connection: closing Jetty's connection mid-head makes it answer
              // 500 for the EOF it then reads.
              connection.getEndPoint().close();
            }
          });
    } catch (RuntimeException e) {
      // One bad sweep must not end the watching; the next one runs regardless.
      LOG.warn("header deadline sweep failed", e);
    } finally {
      schedule();
    }
  }

  /** One connection's state: requests in hand, and where its idle bytes stood. */
  private static final class Watch {
    private int handling;
    private long restBytes;
    private boolean headSeen;
    private long headSince;

    Watch(long bytesIn) {
      this.restBytes = bytesIn;
    }

    synchronized void started() {
      handling++;
      headSeen = false;
    }

    synchronized void ended(long bytesIn) {
      handling--;
      restBytes = bytesIn;
      headSeen = false;
    }

    /** Whether a head that began arriving at least {@code deadline} ago is still incomplete. */
    synchronized boolean expired(long bytesIn, long now, long deadline) {
      if (handling > 0 || bytesIn == restBytes) {
        headSeen = false;
        return false;
      }
      if (!headSeen) {
        headSeen = true;
        headSince = now;
        return false;
      }
      return now - headSince >= deadline;
    }
  }
}
