package org.meshjava.energy;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One holder's lease on the meter that discovery found for its options, shared by every holder in
 * this process that discovered with equal {@link DiscoveryOptions}. Get one with {@link
 * MeterDiscovery#lease(DiscoveryOptions)}; {@link #close()} releases it, and the last release
 * closes the meter.
 *
 * <p>Why shared: a counter reads its whole domain, and a meter splits a domain's energy only among
 * the windows in its own books (SPEC 40 §3). Two meters over the same counters (two stewards of one
 * process that each discovered a meter) would each see a lone window where the serves overlapped,
 * and both grade the same joules {@code HwShunt}. One meter sees both windows and splits them.
 *
 * <p>Only a meter that grades from hardware ({@link CounterMeter}) is shared: a discovery that
 * proved no counter live yields an {@link EstimatorMeter}, which keeps no books and holds nothing,
 * so the next lease discovers again and may find counters live that were not before. A shared meter
 * that its holder closed directly (rather than releasing its lease) is never handed out again: the
 * next lease discovers a new one.
 *
 * <p>Thread-safe. Leases are taken one at a time in the process, each waiting for a discovery in
 * progress (a probe of up to 1.5 s), so two holders asking at once share one probe rather than
 * running two, whose burns would disturb each other. {@link #close()} is idempotent.
 */
public final class MeterLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MeterLease.class);

  /** The hardware meters leased in this process, by the options they were discovered with. */
  private static final Map<DiscoveryOptions, Shared> SHARED = new HashMap<>();

  /** A shared meter and how many leases on it are not released. Guarded by {@link #SHARED}. */
  private static final class Shared {
    final MeterDiscovery found;
    int leases;

    Shared(MeterDiscovery found) {
      this.found = found;
    }
  }

  private final DiscoveryOptions options;
  private final MeterDiscovery found;
  private final @Nullable Shared shared; // null when the meter is not shared (an estimator)
  private final AtomicBoolean released = new AtomicBoolean();

  private MeterLease(DiscoveryOptions options, MeterDiscovery found, @Nullable Shared shared) {
    this.options = options;
    this.found = found;
    this.shared = shared;
  }

  /**
   * A lease on the hardware meter shared under {@code options}, discovering one with {@code
   * discovery} when none is open.
   */
  static MeterLease acquire(
      DiscoveryOptions unsaid, Function<DiscoveryOptions, MeterDiscovery> discovery) {
    DiscoveryOptions options = MeterDiscovery.hostSaid(Objects.requireNonNull(unsaid, "options"));
    synchronized (SHARED) {
      Shared shared = SHARED.get(options);
      if (shared != null
          && shared.found.meter() instanceof CounterMeter meter
          && !meter.isClosed()) {
        shared.leases++;
        LOG.info(
            "energy meter {} shared: discovered earlier in this process with equal options, so"
                + " serves of every holder are split in one set of books ({} leases)",
            meter.name(),
            shared.leases);
        return new MeterLease(options, shared.found, shared);
      }
      MeterDiscovery found = Objects.requireNonNull(discovery.apply(options), "discovery");
      if (found.meter() instanceof CounterMeter) {
        Shared fresh = new Shared(found);
        fresh.leases = 1;
        SHARED.put(options, fresh);
        return new MeterLease(options, found, fresh);
      }
      // Not shared (see the class comment); a closed meter's entry, if any, goes too.
      SHARED.remove(options);
      return new MeterLease(options, found, null);
    }
  }

  /** What discovery found for this lease's options: its meter and every counter's status. */
  public MeterDiscovery discovery() {
    return found;
  }

  /** The leased meter: shared with every other lease on equal options while it is open. */
  public EnergyMeter meter() {
    return found.meter();
  }

  /**
   * Releases this lease. The last lease on a meter closes it (its re-probe thread stops and its
   * counters are released, {@link CounterMeter#close()}), outside the lock that leases take, so a
   * close that waits for a probe holds no other holder up. Idempotent.
   */
  @Override
  public void close() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    if (shared == null || !(found.meter() instanceof CounterMeter meter)) {
      return;
    }
    boolean last;
    synchronized (SHARED) {
      if (SHARED.get(options) != shared) {
        // Its meter was closed directly and another discovered since: closing it again is a no-op.
        last = true;
      } else {
        last = --shared.leases == 0;
        if (last) {
          SHARED.remove(options);
        }
      }
    }
    if (last) {
      meter.close();
    }
  }
}
