package org.meshjava.openai;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.internal.OperatorText;

/**
 * How often one upstream's failed exchanges reach the server's log: at most one line per interval.
 * During an outage every request fails the same way, and a client that can make the upstream fail
 * can do so at the rate it sends; a line per failure would flood the operator's log at that rate.
 * So the first failure after a quiet interval is logged whole (the upstream's endpoint and the
 * cause), and the failures after it within the interval are only counted, keeping the first and the
 * last cause. The count goes out with the next line this limit lets through: the first failure once
 * the interval has passed, or, when the upstream serves a reply again after the interval has
 * passed, a line saying so. The operator still reads when failures began, what they were, how many
 * there were, and that they stopped.
 *
 * <p>A reply the upstream served ({@link #answered} with 200) ends nothing by itself: an upstream
 * that fails some requests and serves others (one client's requests refused, everyone else's
 * served) would otherwise log a failure and a recovery per request. Thread-safe; the call on every
 * served exchange reads one volatile field when nothing is pending.
 */
final class FailureLogLimit {
  private final Duration interval;
  private final InstantSource clock;

  /** When the last line was let through; null before any. */
  private @Nullable Instant lastLine;

  /** Failures counted and not yet logged since {@link #lastLine}. */
  private long unlogged;

  private @Nullable String firstUnlogged;
  private @Nullable String lastUnlogged;

  /** The status of a reply the upstream served (UpstreamEngine refuses any other). */
  private static final int SERVED = 200;

  /** Whether {@link #unlogged} is above zero, read without the lock on the served path. */
  private volatile boolean pending;

  /**
   * @param interval the least time between two lines; positive
   * @param clock where the time is read
   */
  FailureLogLimit(Duration interval, InstantSource clock) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    this.interval = interval;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Counts a failure, {@code cause} saying what failed (the caller's line names the upstream).
   *
   * @return what to log of it (the cause, then the count of failures not logged before it), or
   *     empty when this failure is only counted
   */
  synchronized Optional<String> failed(String raw) {
    // The cause may hold the upstream's own words (its refusal's body, its exception's message):
    // made one safe line here, where every upstream line to the log passes, so no upstream can
    // put a line end a log reader breaks on (NEL, U+2028) or a terminal escape into it.
    String cause = OperatorText.oneLine(raw);
    Instant now = clock.instant();
    if (lastLine != null && now.isBefore(lastLine.plus(interval))) {
      if (unlogged == 0) {
        firstUnlogged = cause;
      }
      unlogged++;
      lastUnlogged = cause;
      pending = true;
      return Optional.empty();
    }
    String out = unlogged == 0 ? cause : cause + "; before it, " + summary();
    letThrough(now);
    return Optional.of(out);
  }

  /**
   * Notes an exchange that reached the upstream, which answered {@code status}. Only a 200, the one
   * status {@link UpstreamEngine} takes a reply from, says the upstream answers again: an upstream
   * that answers 502 or 503 through an outage (a proxy in front of a stopped server, an overloaded
   * one) still fails every serve, and a line saying it answered again would tell the operator the
   * outage was over while it went on.
   *
   * @return a line saying the upstream answered again with the count of failures not logged, when
   *     {@code status} is 200, there are failures not logged and the interval since the last line
   *     has passed; else empty
   */
  Optional<String> answered(int status) {
    if (!pending || status != SERVED) {
      return Optional.empty();
    }
    synchronized (this) {
      Instant now = clock.instant();
      if (unlogged == 0 || (lastLine != null && now.isBefore(lastLine.plus(interval)))) {
        return Optional.empty();
      }
      String out = "answered again; " + summary();
      letThrough(now);
      return Optional.of(out);
    }
  }

  private String summary() {
    return unlogged
        + (unlogged == 1 ? " failure" : " failures")
        + " not logged since "
        + lastLine
        + " (the first: "
        + firstUnlogged
        + (unlogged == 1 ? ")" : "; the last: " + lastUnlogged + ")");
  }

  private void letThrough(Instant now) {
    lastLine = now;
    unlogged = 0;
    firstUnlogged = null;
    lastUnlogged = null;
    pending = false;
  }
}
