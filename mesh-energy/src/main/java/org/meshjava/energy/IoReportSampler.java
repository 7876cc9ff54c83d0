package org.meshjava.energy;

import java.util.List;

/** Takes IOReport samples. The native one is {@link IoReportNative}; tests replay recordings. */
interface IoReportSampler {

  /** Samples now and returns the delta since the previous call (the first call primes it). */
  List<IoReportEntry> sampleDelta() throws CounterException;

  /** Releases the subscription. */
  default void release() {}
}
