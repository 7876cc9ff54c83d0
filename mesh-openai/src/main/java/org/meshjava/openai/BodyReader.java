package org.meshjava.openai;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Reads one request body without holding a thread while the client is slow.
 *
 * <p>Design note. Reading a body through a blocking stream parks a pool thread for as long as the
 * client takes to send it, so a dozen clients sending one byte a second would take every worker and
 * with them the server. Here a thread runs only when bytes have arrived: the reader asks Jetty for
 * a callback ({@link Request#demand}) whenever nothing is buffered, copies what is, and returns. A
 * client that never finishes is still bounded: the body must be complete within a deadline from the
 * first call, or the reader settles as {@link Outcome#TIMED_OUT}, which the server answers 408 and
 * closes. Exactly one of the outcomes is delivered, once, whichever comes first.
 *
 * <p>The size of the body is bounded before it gets here, by Jetty's size-limit handler: a body
 * that grows past the limit reads as a failure carrying a 413, and settles as {@link
 * Outcome#FAILED}. The bodies being read at once are bounded too, by a {@link Budget} of bytes
 * shared by every reader: a body whose next bytes do not fit settles as {@link Outcome#BUSY}, and
 * what a reader took is given back when it settles. Without it, a few thousand connections each
 * sending most of a body and then stalling held every byte of them until the deadline, and filled
 * the heap.
 */
final class BodyReader implements Runnable {
  /** How a read ended. */
  enum Outcome {
    /** The whole body arrived. */
    READ,
    /** The body did not arrive within the deadline. */
    TIMED_OUT,
    /** The connection failed or closed before the body ended, or the body was over the limit. */
    FAILED,
    /** The bodies being read already hold the whole {@link Budget}. */
    BUSY
  }

  /** The bytes all bodies being read at once may hold; thread-safe. */
  static final class Budget {
    private final long limit;
    private final AtomicLong held = new AtomicLong();

    Budget(long limit) {
      this.limit = limit;
    }

    /** Takes {@code n} bytes if they fit. */
    boolean take(long n) {
      while (true) {
        long now = held.get();
        if (now + n > limit) {
          return false;
        }
        if (held.compareAndSet(now, now + n)) {
          return true;
        }
      }
    }

    void give(long n) {
      held.addAndGet(-n);
    }

    /** The bytes held now. */
    long held() {
      return held.get();
    }

    long limit() {
      return limit;
    }
  }

  /**
   * Receives the outcome, the body when it is {@link Outcome#READ}, and the connection's failure
   * when it is {@link Outcome#FAILED} (else null); called once.
   */
  @FunctionalInterface
  interface Done {
    void done(Outcome outcome, byte[] body, @Nullable Throwable failure);
  }

  private final Request request;
  private final Budget budget;
  private long taken;
  private final Done done;
  private final AtomicBoolean settled = new AtomicBoolean();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private @Nullable Throwable failure;
  private volatile Scheduler.@Nullable Task deadline;

  private BodyReader(Request request, Budget budget, Done done) {
    this.request = request;
    this.budget = budget;
    this.done = done;
  }

  /**
   * Starts reading {@code request}'s body; {@code done} is called once, on some thread, when it
   * ends. Returns at once.
   *
   * @param deadlineMillis how long the whole body may take
   * @param budget what the bodies being read at once may hold, shared by every reader
   */
  static void read(Request request, long deadlineMillis, Budget budget, Done done) {
    BodyReader reader = new BodyReader(request, budget, done);
    reader.deadline =
        request
            .getComponents()
            .getScheduler()
            .schedule(
                () -> reader.settle(Outcome.TIMED_OUT), deadlineMillis, TimeUnit.MILLISECONDS);
    reader.run();
  }

  /** Reads what is buffered, then asks to be called again when more arrives. */
  @Override
  public void run() {
    while (!settled.get()) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        failure = chunk.getFailure();
        settle(Outcome.FAILED);
        return;
      }
      ByteBuffer bytes = chunk.getByteBuffer();
      int n = bytes.remaining();
      if (!take(n)) {
        chunk.release();
        settle(Outcome.BUSY);
        return;
      }
      byte[] copy = new byte[n];
      bytes.get(copy);
      body.writeBytes(copy);
      boolean last = chunk.isLast();
      chunk.release();
      if (last) {
        settle(Outcome.READ);
        return;
      }
    }
  }

  /**
   * Takes {@code n} more bytes of the budget. Twice what the body holds is counted: its buffer
   * grows by doubling, and is copied whole when it is handed over.
   */
  private synchronized boolean take(int n) {
    if (settled.get()) {
      // Settled meanwhile (the deadline), and what it took already given back: take no more.
      return false;
    }
    if (n == 0 || budget.take(2L * n)) {
      taken += 2L * n;
      return true;
    }
    return false;
  }

  private synchronized void giveBack() {
    budget.give(taken);
    taken = 0;
  }

  private void settle(Outcome outcome) {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    giveBack();
    Scheduler.Task t = deadline;
    if (t != null && outcome != Outcome.TIMED_OUT) {
      t.cancel();
    }
    done.done(outcome, outcome == Outcome.READ ? body.toByteArray() : new byte[0], failure);
  }
}
