package org.meshjava.openai;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * How long an upstream's event stream may go without content: the upstream's timeout, counted from
 * the request and again from each content delta the reply parser accepted ({@link #content}).
 * Comment lines, blank lines, events without text and bytes of a line not yet ended do not restart
 * it.
 *
 * <p>Why not the HTTP client's idle timeout alone: it restarts on any byte, so an upstream sending
 * a comment line every few seconds held the serve, its backend slot and a thread until the stream's
 * byte bound. Why not a bound on the whole stream: an honest long generation (4 000 tokens at 30 a
 * second is over two minutes) would fail on default settings. With this rule a stream lasts as long
 * as it produces text, and it produces at most {@code max_tokens} deltas.
 *
 * <p>Kept twice: each read of the {@linkplain #watching watched} stream fails once the deadline has
 * passed (a trickle returns from its reads), and a task on the HTTP client's scheduler aborts the
 * exchange then (a read blocked on an upstream that sends nothing). Either failure carries a {@link
 * Passed}, whose words say which of the two happened.
 *
 * <p>Thread-safe: the serving thread reads and restarts it, the scheduler's thread fires it.
 */
final class ContentDeadline {
  private final long timeoutNanos;
  private final Scheduler scheduler;
  private final Consumer<Throwable> abort;

  /** When the deadline is due ({@link System#nanoTime()}). */
  private volatile long due;

  /** Whether a read returned bytes since the last content: a trickle, not a silence. */
  private volatile boolean bytesSinceContent;

  /** The pending check, null once stopped; written under this. */
  private Scheduler.@Nullable Task task;

  private boolean stopped;

  /**
   * Starts the deadline at {@code timeout} from now; past it, {@code abort} is called (once, on the
   * scheduler's thread) unless {@link #stop} came first.
   */
  ContentDeadline(Duration timeout, Scheduler scheduler, Consumer<Throwable> abort) {
    this.timeoutNanos = timeout.toNanos();
    this.scheduler = scheduler;
    this.abort = abort;
    this.due = System.nanoTime() + timeoutNanos;
    synchronized (this) {
      task = scheduler.schedule(this::fire, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The upstream sent content: the deadline starts again from now. */
  void content() {
    bytesSinceContent = false;
    due = System.nanoTime() + timeoutNanos;
  }

  /** Whether the deadline has passed. */
  boolean passed() {
    return System.nanoTime() - due >= 0;
  }

  /**
   * Why the deadline passed, in words a client may read: a silent upstream, or one that kept
   * sending something other than content.
   */
  String words() {
    return bytesSinceContent
        ? "it sent no content within the timeout (comment lines and events without text do not"
            + " count)"
        : "nothing arrived within the timeout";
  }

  /** Cancels the scheduled abort; the exchange ended, or is being closed. */
  void stop() {
    Scheduler.Task t;
    synchronized (this) {
      stopped = true;
      t = task;
      task = null;
    }
    if (t != null) {
      var unused = t.cancel();
    }
  }

  /**
   * {@code in}, each of whose reads fails with {@link Passed} once the deadline has passed; closing
   * it {@linkplain #stop stops} the deadline and closes {@code in}.
   */
  InputStream watching(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n == -1 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (passed()) {
          throw new Passed(words());
        }
        int n = super.read(b, off, len);
        if (n > 0) {
          bytesSinceContent = true;
        }
        return n;
      }

      @Override
      public void close() throws IOException {
        stop();
        super.close();
      }
    };
  }

  private void fire() {
    synchronized (this) {
      if (stopped) {
        return;
      }
      long left = due - System.nanoTime();
      if (left > 0) {
        // Content came since this check was scheduled: check again when the new deadline is due.
        task = scheduler.schedule(this::fire, left, TimeUnit.NANOSECONDS);
        return;
      }
      stopped = true;
      task = null;
    }
    abort.accept(new Passed(words()));
  }

  /** The deadline passed; the message is {@link #words}. */
  static final class Passed extends IOException {
    private static final long serialVersionUID = 1L;

    Passed(String message) {
      super(message);
    }
  }
}
