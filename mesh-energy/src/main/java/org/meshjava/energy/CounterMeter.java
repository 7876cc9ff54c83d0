package org.meshjava.energy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A meter over hardware energy counters (RAPL, NVML, Apple IOReport) that grades each figure
 * honestly (§3.3). Build one with {@link MeterDiscovery#discover(DiscoveryOptions)}.
 *
 * <p>A window's figure is graded:
 *
 * <ul>
 *   <li>{@code HwShunt}, carrying the counters' summed delta as {@code measured_uj}, only when
 *       every domain the backend declared has a counter that was live from the window's open to
 *       its close (same liveness epoch, no probe in between, no stall), and no other window
 *       shared any of those domains at any moment;
 *   <li>{@code ModelBased}, with {@code measured_uj} absent and the window's apportioned share
 *       of the counters as its figure, when coverage and liveness hold but another window shared
 *       a domain (package-wide counters cannot tell two serves apart);
 *   <li>{@code Estimator}, with the caller's estimate, in every other case: a domain without a
 *       live counter, a counter that stalled, failed or was re-probed during the window, or a
 *       backend that declares no domains.
 * </ul>
 *
 * <p>Counters are re-probed in the background every {@code reprobeEvery} and soon after one
 * stops advancing or fails to read. {@link #counters()} says which are live and why the others
 * are not; every change is also logged.
 *
 * <p>Thread-safe: windows may be opened and closed from many threads at once. Each window is
 * for one serve and one thread.
 */
public final class CounterMeter implements EnergyMeter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CounterMeter.class);

  private final Map<EnergyDomain, DomainLedger> ledgers;
  private final List<CounterStatus> unavailable;
  private final LivenessProbe probe;
  private final ProbeClock clock;
  private final long reprobeEveryNanos;
  private final long stallNanos;
  private final Optional<Runnable> gpuWork;
  private final Executor reprobeExecutor;
  private final ExecutorService ownedExecutor;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final String name;

  /**
   * @param channels the readable counters, one per domain
   * @param unavailable counters found but not readable, reported by {@link #counters()}
   * @param reprobeExecutor where background probes run; null for a private daemon thread
   */
  CounterMeter(
      List<EnergyChannel> channels,
      List<CounterStatus> unavailable,
      LivenessPolicy policy,
      Duration reprobeEvery,
      Duration stallAfter,
      Optional<Runnable> gpuWork,
      ProbeClock clock,
      Executor reprobeExecutor) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.probe = new LivenessProbe(policy, clock);
    this.reprobeEveryNanos = reprobeEvery.toNanos();
    this.stallNanos = stallAfter.toNanos();
    this.gpuWork = Objects.requireNonNull(gpuWork, "gpuWork");
    this.unavailable = List.copyOf(unavailable);
    Map<EnergyDomain, DomainLedger> byDomain = new LinkedHashMap<>();
    long now = clock.nanoTime();
    for (EnergyChannel channel : channels) {
      if (byDomain.putIfAbsent(channel.domain(), new DomainLedger(channel, now)) != null) {
        throw new IllegalArgumentException("two counters claim " + channel.domain());
      }
    }
    this.ledgers = Collections.unmodifiableMap(byDomain);
    if (reprobeExecutor == null) {
      this.ownedExecutor =
          Executors.newSingleThreadExecutor(
              r -> Thread.ofPlatform().daemon().name("mesh-energy-reprobe").unstarted(r));
      this.reprobeExecutor = ownedExecutor;
    } else {
      this.ownedExecutor = null;
      this.reprobeExecutor = reprobeExecutor;
    }
    List<String> names = new ArrayList<>();
    for (DomainLedger l : ledgers.values()) {
      names.add(l.name());
    }
    this.name = "counters" + names;
  }

  @Override
  public String name() {
    return name;
  }

  /** Every counter this meter found, live or not, with the reason for any that is not live. */
  public List<CounterStatus> counters() {
    List<CounterStatus> all = new ArrayList<>();
    for (DomainLedger l : ledgers.values()) {
      all.add(l.status());
    }
    all.addAll(unavailable);
    return List.copyOf(all);
  }

  /** The domains whose counters are live right now. */
  public Set<EnergyDomain> liveDomains() {
    Set<EnergyDomain> live = new java.util.LinkedHashSet<>();
    for (DomainLedger l : ledgers.values()) {
      if (l.isLive()) {
        live.add(l.domain());
      }
    }
    return Collections.unmodifiableSet(live);
  }

  /**
   * Probes every readable counter now, on the calling thread (it burns CPU for one probe
   * duration), and returns the resulting statuses.
   */
  public List<CounterStatus> probeNow() {
    runProbe(List.copyOf(ledgers.values()));
    return counters();
  }

  @Override
  public MeterWindow open(Set<EnergyDomain> domains) {
    Objects.requireNonNull(domains, "domains");
    long now = clock.nanoTime();
    scheduleDueProbes(now);
    Map<DomainLedger, DomainLedger.Share> entered = new LinkedHashMap<>();
    boolean covered = !domains.isEmpty();
    for (EnergyDomain d : domains) {
      DomainLedger ledger = ledgers.get(d);
      Optional<DomainLedger.Share> share =
          ledger == null ? Optional.empty() : ledger.enter(now);
      if (share.isPresent()) {
        entered.put(ledger, share.get());
      } else {
        covered = false;
      }
    }
    return new Window(entered, covered);
  }

  /** Stops background probes and releases the counters' native resources. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
    for (DomainLedger l : ledgers.values()) {
      l.channel().release();
    }
  }

  private void scheduleDueProbes(long now) {
    if (closed.get()) {
      return;
    }
    for (DomainLedger l : ledgers.values()) {
      if (l.claimProbe(now, reprobeEveryNanos)) {
        try {
          reprobeExecutor.execute(
              () -> {
                try {
                  runProbe(List.of(l));
                } finally {
                  l.probeFinished();
                }
              });
        } catch (RejectedExecutionException e) {
          l.probeFinished();
        }
      }
    }
  }

  private void runProbe(List<DomainLedger> targets) {
    if (targets.isEmpty()) {
      return;
    }
    for (DomainLedger l : targets) {
      l.beginProbe();
    }
    Thread gpuLoad = null;
    AtomicBoolean stop = new AtomicBoolean();
    if (gpuWork.isPresent()
        && targets.stream().anyMatch(l -> l.domain().kind() == EnergyDomain.Kind.GPU)) {
      Runnable work = gpuWork.get();
      gpuLoad =
          Thread.ofPlatform()
              .daemon()
              .name("mesh-energy-gpu-probe-load")
              .start(
                  () -> {
                    while (!stop.get()) {
                      work.run();
                    }
                  });
    }
    List<LivenessVerdict> verdicts;
    try {
      verdicts = probe.probe(targets);
    } catch (RuntimeException e) {
      LOG.warn("liveness probe failed; counters stay not live", e);
      verdicts = new ArrayList<>();
      for (int i = 0; i < targets.size(); i++) {
        verdicts.add(LivenessVerdict.notLive(CounterIssue.READ_FAILED, "probe failed: " + e));
      }
    } finally {
      stop.set(true);
    }
    if (gpuLoad != null) {
      try {
        gpuLoad.join(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long now = clock.nanoTime();
    for (int i = 0; i < targets.size(); i++) {
      targets.get(i).endProbe(verdicts.get(i), now);
    }
  }

  /** One serve's window. Not thread-safe; it belongs to one serve. */
  private final class Window implements MeterWindow {
    private final Map<DomainLedger, DomainLedger.Share> entered;
    private final boolean covered;
    private boolean done;

    Window(Map<DomainLedger, DomainLedger.Share> entered, boolean covered) {
      this.entered = entered;
      this.covered = covered;
    }

    @Override
    public Energy close(long estimatedUj) {
      if (estimatedUj < 0) {
        leaveAll();
        throw new IllegalArgumentException("estimatedUj must be non-negative: " + estimatedUj);
      }
      Map<DomainLedger, DomainLedger.Exit> exits = leaveAll();
      boolean trusted = covered;
      boolean overlapped = false;
      long measured = 0;
      double apportioned = 0;
      for (DomainLedger.Exit exit : exits.values()) {
        trusted &= exit.trusted();
        overlapped |= exit.overlapped();
        measured = saturatingAdd(measured, exit.measuredUj());
        apportioned += exit.apportionedUj();
      }
      if (!trusted) {
        return Energy.estimated(estimatedUj);
      }
      if (overlapped) {
        long share = apportioned >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.round(apportioned);
        return new Energy(OptionalLong.empty(), Math.max(0, share), Provenance.ModelBased);
      }
      return Energy.measured(measured, estimatedUj);
    }

    @Override
    public void abandon() {
      leaveAll();
    }

    private Map<DomainLedger, DomainLedger.Exit> leaveAll() {
      if (done) {
        throw new IllegalStateException("window already closed");
      }
      done = true;
      long now = clock.nanoTime();
      Map<DomainLedger, DomainLedger.Exit> exits = new LinkedHashMap<>();
      boolean anyDemoted = false;
      for (Map.Entry<DomainLedger, DomainLedger.Share> e : entered.entrySet()) {
        DomainLedger.Exit exit = e.getKey().leave(e.getValue(), now, stallNanos);
        exits.put(e.getKey(), exit);
        anyDemoted |= exit.demoted();
      }
      if (anyDemoted) {
        scheduleDueProbes(now);
      }
      return exits;
    }
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
