package org.meshjava.energy;

import org.meshjava.core.EnergyDomain;

/**
 * A channel over a {@link TimedCounter}: its name, domain, hardware and reads are the counter's,
 * and a test overrides the one it scripts a fault or a property in (a total shifted or reset, a
 * domain that throws, a read gap that makes the meter read the counter on a timer). Shared by the
 * tests that used to copy the forwarding each time.
 */
class ForwardingChannel implements EnergyChannel {
  final TimedCounter counter;

  ForwardingChannel(TimedCounter counter) {
    this.counter = counter;
  }

  /** The counter, which wraps unless read every {@code maxReadGapNanos}. */
  static EnergyChannel readEvery(TimedCounter counter, long maxReadGapNanos) {
    return new ForwardingChannel(counter) {
      @Override
      public long maxReadGapNanos() {
        return maxReadGapNanos;
      }
    };
  }

  @Override
  public String name() {
    return counter.name();
  }

  @Override
  public EnergyDomain domain() {
    return counter.domain();
  }

  @Override
  public Object hardware() {
    return counter.hardware();
  }

  @Override
  public long readTotalUj() throws CounterException {
    return counter.readTotalUj();
  }
}
