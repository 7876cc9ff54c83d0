package org.meshjava.steward;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * How often one backend's failures are said at WARN in the operator's log: at most once each {@code
 * every}, counted from the last WARN (not from the last success: a backend that fails only for some
 * requests would otherwise be warned of at the rate those requests come). The log says why at once,
 * is not flooded at the rate requests come, and a backend that fails again later is said at WARN
 * again. Keyed by the router's backend names, a fixed set, so it never grows past the backends.
 * Thread-safe.
 */
final class WarnLimit {
  /**
   * When each backend's failure was last said at WARN, in {@link #nanoTime}'s count; keyed by the
   * router's names.
   */
  private final ConcurrentMap<String, Long> warnedAt = new ConcurrentHashMap<>();

  private final long everyNanos;
  private final LongSupplier nanoTime;

  /**
   * @param every the least time between two WARNs for one backend
   * @param nanoTime the monotonic time the gap is counted in ({@code System::nanoTime}; a test's
   *     stand-in)
   */
  WarnLimit(Duration every, LongSupplier nanoTime) {
    this.everyNanos = every.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Whether {@code backend}'s failure is the one to say at WARN: its first, or its first once the
   * gap has passed since the last one was. Of threads racing here, one is told yes.
   */
  boolean warnNow(String backend) {
    long now = nanoTime.getAsLong();
    Long last = warnedAt.get(backend);
    if (last == null) {
      return warnedAt.putIfAbsent(backend, now) == null;
    }
    // A difference of nanoTime values, never a comparison of them: the count may wrap.
    return now - last >= everyNanos && warnedAt.replace(backend, last, now);
  }
}
