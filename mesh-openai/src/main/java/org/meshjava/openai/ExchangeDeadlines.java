package org.meshjava.openai;

import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Ends {@link KeepAliveHttp}'s exchanges that outlive their deadline by closing their socket, which
 * makes the blocked connect, read or write fail at once.
 *
 * <p>Why not a socket read timeout ({@code Socket.setSoTimeout}): the JDK serves a timed read on a
 * non-blocking socket, as a read that fails with {@code EAGAIN}, a {@code poll} until bytes arrive,
 * and the read again: three system calls where a blocking read makes one, on every reply of the
 * proxied serve path (see mesh-bench/README.md, sessions 23 and 25). So the sockets stay in
 * blocking mode with no timeout, and the deadlines are kept here.
 *
 * <p>How, without work per exchange beyond a set's add and remove: one sweep is pending at a time,
 * on a timer thread, due at the earliest deadline it was scheduled for; an exchange whose deadline
 * is earlier than the pending sweep's (or that finds none pending) schedules one. A sweep closes
 * the sockets of the exchanges past their deadline and schedules the next sweep for the earliest
 * deadline left. Every exchange has the same timeout per engine, so a busy client sweeps about once
 * per timeout; an idle one not at all, and its timer thread ends after {@link #IDLE_SECONDS} s.
 * Deadlines are kept to the timer's precision (milliseconds), not to a polling period.
 *
 * <p>Thread-safe.
 */
final class ExchangeDeadlines {
  /** How long the timer thread outlives its last sweep. */
  private static final long IDLE_SECONDS = 60;

  private static final class Shared {
    static final ExchangeDeadlines INSTANCE = new ExchangeDeadlines();
  }

  private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor timer;

  /**
   * When the pending sweep is due ({@link System#nanoTime()}), null when none is; written under
   * this. One field, not a flag and a time: {@link #watch} reads it without the lock, and a flag
   * just set beside a time not yet written read as a sweep pending at the previous (past) time, so
   * an earlier deadline scheduled none and was kept only at the later sweep.
   */
  private volatile @Nullable Long pendingAt;

  private ExchangeDeadlines() {
    timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "mesh-upstream-deadlines");
              t.setDaemon(true);
              return t;
            });
    timer.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
  }

  /** The deadlines of this JVM's plain-http exchanges. */
  static ExchangeDeadlines shared() {
    return Shared.INSTANCE;
  }

  /**
   * Starts watching an exchange that must end by {@code deadline} ({@link System#nanoTime()}); the
   * caller {@linkplain Watch#attach attaches} each socket it uses and {@linkplain Watch#finish
   * finishes} the watch on every path.
   */
  Watch watch(long deadline) {
    Watch w = new Watch(deadline);
    // Added before the pending sweep is read: a sweep clears it before it looks at the set, so
    // either that sweep sees this watch or this call sees no sweep pending and schedules one.
    watched.add(w);
    Long at = pendingAt;
    if (at == null || deadline - at < 0) {
      sweepBy(deadline);
    }
    return w;
  }

  private synchronized void sweepBy(long deadline) {
    Long at = pendingAt;
    if (at != null && deadline - at >= 0) {
      return;
    }
    pendingAt = deadline;
    var unused =
        timer.schedule(
            this::sweep, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void sweep() {
    synchronized (this) {
      pendingAt = null;
    }
    long now = System.nanoTime();
    boolean left = false;
    long earliest = 0;
    for (Watch w : watched) {
      if (now - w.deadline >= 0) {
        w.expire();
      } else if (!left || w.deadline - earliest < 0) {
        left = true;
        earliest = w.deadline;
      }
    }
    if (left) {
      sweepBy(earliest);
    }
  }

  /** One exchange's deadline, and the socket it is using. */
  final class Watch {
    private static final int RUNNING = 0;
    private static final int DONE = 1;
    private static final int EXPIRED = 2;

    private final long deadline;
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private volatile @Nullable Socket socket;

    private Watch(long deadline) {
      this.deadline = deadline;
    }

    /**
     * Makes {@code s} the socket closed if the deadline passes; closes it at once if it has passed
     * already (the sweep may have closed the previous socket just before).
     */
    void attach(Socket s) {
      socket = s;
      if (state.get() == EXPIRED) {
        close(s);
      }
    }

    /** Whether the sweep ended this exchange: a failure seen after it is the timeout's. */
    boolean expired() {
      return state.get() == EXPIRED;
    }

    /**
     * Stops watching; returns false if the deadline passed first (the socket is then closed, or
     * being closed, and must not be used again).
     */
    boolean finish() {
      watched.remove(this);
      return state.compareAndSet(RUNNING, DONE) || state.get() == DONE;
    }

    private void expire() {
      if (state.compareAndSet(RUNNING, EXPIRED)) {
        watched.remove(this);
        Socket s = socket;
        if (s != null) {
          close(s);
        }
      }
    }

    private static void close(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // A socket that does not close cleanly is closed enough: its blocked call fails.
      }
    }
  }
}
