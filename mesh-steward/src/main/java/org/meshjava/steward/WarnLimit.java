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
 * again. Keyed by backend name. One steward's names are a fixed set, but the engine-failure log is
 * one per process ({@link EngineFailureLog#SHARED}) and outlives its stewards, so an embedder that
 * builds stewards whose backends take new names would add a key each for good: past {@link
 * #MAX_NAMES} names the map is emptied, at worst saying a failure at WARN again before its gap.
 * Thread-safe.
 */
final class WarnLimit {
  /** The most backend names held; past it every name starts afresh. */
  static final int MAX_NAMES = 1024;

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
      if (warnedAt.size() >= MAX_NAMES) {
        warnedAt.clear();
      }
      return warnedAt.putIfAbsent(backend, now) == null;
    }
    // A difference of nanoTime values, never a comparison of them: the count may wrap.
    return now - last >= everyNanos && warnedAt.replace(backend, last, now);
  }

  /** How many backend names are held (a test's view of the bound). */
  int names() {
    return warnedAt.size();
  }
}
