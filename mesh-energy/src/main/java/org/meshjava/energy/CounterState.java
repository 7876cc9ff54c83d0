package org.meshjava.energy;

/** Where a counter stands with the liveness rule of §3.3. */
public enum CounterState {
  /** Proven live by the last probe and advancing since: it may grade figures {@code HwShunt}. */
  LIVE,
  /** Readable, but not proven live (frozen, lumpy, stalled, or being re-probed). */
  NOT_LIVE,
  /** Not readable at all here; never re-probed. */
  UNAVAILABLE
}
