package org.meshjava.energy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.core.Provenance;
import org.meshjava.core.Unsigned;
import org.meshjava.core.internal.FirstFailureWins;
import org.meshjava.core.internal.ThrowableWords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * A meter over hardware energy counters (RAPL, NVML, Apple IOReport) that grades each figure
 * honestly (§3.3). Build one with {@link MeterDiscovery#discover(DiscoveryOptions)}.
 *
 * <p>A window's figure is graded:
 *
 * <ul>
 *   <li>{@code HwShunt}, carrying the counters' summed delta as {@code measured_uj}, only when
 *       every domain the window was opened on has a counter that was live from the window's open to
 *       its close (same liveness epoch, no probe of any counter in between, no stall, no read gap
 *       long enough to hide a wrap, a read proving it moved within five update periods before the
 *       close), the window spanned enough of each counter's update periods to be resolved, every
 *       counter moved if the serve did work, no other window shared any of those domains at any
 *       moment, and none closed on one of them less than an update period before the open (the
 *       counter had yet to publish the end of that serve);
 *   <li>{@code ModelBased}, with {@code measured_uj} absent and the window's apportioned share of
 *       the counters as its figure, when all that holds but another window shared a domain
 *       (package-wide counters cannot tell two serves apart);
 *   <li>{@code Estimator}, with the caller's estimate, in every other case.
 * </ul>
 *
 * <p>A window covers every CPU package the serve's process may run on as well as the domains it is
 * opened on, where those name any ({@link HostPackages#cover}): the serve's own thread runs on the
 * host whatever it drives, so a window opened on a GPU alone is not a reading of the whole serve
 * unless the host's packages are live too (§3.3). The packages are those its discovery's options
 * give ({@link DiscoveryOptions#hostPackages()}); where that list may be incomplete ({@link
 * HostPackages#complete()}: a host that hid its CPU topology) no window is a reading at all.
 *
 * <p>A window declaring CPU package {@code n} also covers that package's DRAM where this meter has
 * a DRAM counter for it: the serve's memory traffic lands there, and the counter exists to say so.
 *
 * <p>Counters are re-probed in the background every {@code reprobeEvery} and soon after one stops
 * advancing or fails to read (a counter demoted again within {@code reprobeEvery} of its last
 * demotion waits 10 s for the re-probe, then twice as long at each further one, up to {@code
 * reprobeEvery}); counters that wrap are read in the background often enough to see every wrap, and
 * live counters with a window open on them every two update periods (none while idle). {@link
 * #counters()} says which are live and why the others are not; every change is also logged.
 *
 * <p>Thread-safe: windows may be opened and closed from many threads at once. Each window is for
 * one serve and one thread. {@link #close()} waits for a running probe to stop before it releases
 * the counters.
 */
public final class CounterMeter implements EnergyMeter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CounterMeter.class);

  /**
   * How long {@link #close()} waits for a probe to stop before it returns, leaving the release to
   * the probe's end.
   */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  /**
   * Every meter of this process not yet closed. A probe's burn lands on whatever package the
   * scheduler picks, whichever meter runs it, so it disturbs the windows of every meter in the
   * process (two stewards that each discovered a meter), not only its own. Weak, so a meter dropped
   * without being closed is not kept alive by it. Iterate only while holding it.
   */
  private static final Set<CounterMeter> METERS =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  /**
   * The ledgers each probe now running in the process disturbs, one list per probe; guarded by
   * {@link #METERS}. A meter made while a probe runs joins its list (and is disturbed) as it is
   * made: its burn, or the tail of it that its settle waits out, lands in the new meter's windows
   * as in any other's, and a serve there would otherwise be graded a reading holding it.
   */
  private static final Set<List<DomainLedger>> PROBES_RUNNING =
      Collections.newSetFromMap(new IdentityHashMap<>());

  private final Map<EnergyDomain, DomainLedger> ledgers;
  // The same ledgers by the hardware counter each reads: another meter's window is on one of them
  // only where it reads that very counter, whatever domain name either meter gave it.
  private final Map<Object, DomainLedger> byHardware;
  private final List<CounterStatus> unavailable;
  private final LivenessProbe probe;
  private final ProbeClock clock;
  private final Optional<Runnable> gpuWork;
  private final Executor reprobeExecutor;
  private final @Nullable ScheduledExecutorService ownedExecutor;
  private final AtomicBoolean closed = new AtomicBoolean();
  // The timed read of every counter, so that a counter that wraps is seen between wraps.
  private final OwnReads timedReads =
      new OwnReads("timed read", this::pollEveryNanos, this::pollCounters);
  // The watch of the counters with windows open, for the stall rule.
  private final OwnReads watch =
      new OwnReads("watch", this::watchEveryNanos, this::watchOpenWindows);
  private final AtomicBoolean warnedProbeFailed = new AtomicBoolean();
  private final Object probeLock = new Object();
  private int probesRunning;
  // Guarded by probeLock. Set when close() gave up waiting for a probe: the last probe to end
  // releases the counters.
  private boolean releaseWhenProbesEnd;
  // How long close() waits for a probe to stop (CLOSE_WAIT, shorter in tests).
  private volatile long closeWaitNanos = CLOSE_WAIT.toNanos();
  private final String name;
  // The host's packages every window covers (coveringHost); none for a meter a test made directly.
  private volatile HostPackages host = new HostPackages(Set.of(), true);

  /**
   * @param channels the readable counters, one per domain
   * @param unavailable counters found but not readable, reported by {@link #counters()}
   * @param policy the probe cadence of counters that update about every millisecond
   * @param slowPolicy the probe cadence of counters that say they update slowly (NVML)
   * @param reprobeExecutor where background probes run; null for a private daemon thread, which
   *     also reads wrapping counters often enough to see every wrap
   */
  CounterMeter(
      List<EnergyChannel> channels,
      List<CounterStatus> unavailable,
      LivenessPolicy policy,
      LivenessPolicy slowPolicy,
      Duration reprobeEvery,
      Optional<Runnable> gpuWork,
      ProbeClock clock,
      @Nullable Executor reprobeExecutor) {
    this(
        channels,
        unavailable,
        policy,
        slowPolicy,
        reprobeEvery,
        gpuWork,
        clock,
        reprobeExecutor,
        reprobeExecutor != null
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("mesh-energy-reprobe").unstarted(r)));
  }

  /**
   * As above, the meter's own thread being {@code ownThread} where {@code reprobeExecutor} is null
   * (the meter shuts it down at its close); for tests of what the meter does when scheduling on it
   * fails.
   */
  CounterMeter(
      List<EnergyChannel> channels,
      List<CounterStatus> unavailable,
      LivenessPolicy policy,
      LivenessPolicy slowPolicy,
      Duration reprobeEvery,
      Optional<Runnable> gpuWork,
      ProbeClock clock,
      @Nullable Executor reprobeExecutor,
      @Nullable ScheduledExecutorService ownThread) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.probe = new LivenessProbe(clock);
    long reprobeEveryNanos = reprobeEvery.toNanos();
    this.gpuWork = Objects.requireNonNull(gpuWork, "gpuWork");
    this.unavailable = List.copyOf(unavailable);
    Map<EnergyDomain, DomainLedger> byDomain = new LinkedHashMap<>();
    for (EnergyChannel channel : channels) {
      LivenessPolicy p = channel.slowUpdating() ? slowPolicy : policy;
      if (byDomain.putIfAbsent(
              channel.domain(), new DomainLedger(channel, p, clock, reprobeEveryNanos))
          != null) {
        throw new IllegalArgumentException("two counters claim " + channel.domain());
      }
    }
    this.ledgers = Collections.unmodifiableMap(byDomain);
    Map<Object, DomainLedger> hardware = new LinkedHashMap<>();
    for (DomainLedger l : ledgers.values()) {
      if (hardware.putIfAbsent(l.hardware(), l) != null) {
        throw new IllegalArgumentException("two domains read one counter: " + l.hardware());
      }
    }
    this.byHardware = Collections.unmodifiableMap(hardware);
    List<String> names = new ArrayList<>();
    for (DomainLedger l : ledgers.values()) {
      names.add(l.name());
    }
    this.name = "counters" + names;
    if (reprobeExecutor == null) {
      this.ownedExecutor = Objects.requireNonNull(ownThread, "ownThread");
      this.reprobeExecutor = ownedExecutor;
      timedReads.start();
      holdClosesToStallBound();
    } else {
      this.ownedExecutor = null;
      this.reprobeExecutor = reprobeExecutor;
    }
    synchronized (METERS) {
      METERS.add(this);
      // Its ledgers are not yet reachable by any other thread: their books are not contended.
      for (List<DomainLedger> disturbed : PROBES_RUNNING) {
        for (DomainLedger l : ledgers.values()) {
          l.beginDisturbance();
          disturbed.add(l);
        }
      }
    }
  }

  /**
   * Has every window cover {@code packages} ({@link HostPackages#cover}), and none be a reading
   * where they may be incomplete. Called by discovery before the meter is handed out; a meter made
   * directly (a test's) covers only the domains it is opened on. Returns this.
   */
  CounterMeter coveringHost(HostPackages packages) {
    this.host = Objects.requireNonNull(packages, "packages");
    return this;
  }

  /** A meter probing every counter at one cadence; for tests. */
  CounterMeter(
      List<EnergyChannel> channels,
      List<CounterStatus> unavailable,
      LivenessPolicy policy,
      Duration reprobeEvery,
      Optional<Runnable> gpuWork,
      ProbeClock clock,
      @Nullable Executor reprobeExecutor) {
    this(channels, unavailable, policy, policy, reprobeEvery, gpuWork, clock, reprobeExecutor);
  }

  /**
   * Holds this meter's closes to the stall bound as a meter with its own thread is, the caller
   * undertaking to call {@link #watchOpenWindows()} while windows are open, as that thread does
   * (every {@link #watchEveryNanos()}); for tests of a meter handed an executor. Returns this.
   */
  CounterMeter watchedByCaller() {
    holdClosesToStallBound();
    return this;
  }

  private void holdClosesToStallBound() {
    for (DomainLedger l : ledgers.values()) {
      l.watched();
    }
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
    Set<EnergyDomain> live = new LinkedHashSet<>();
    for (DomainLedger l : ledgers.values()) {
      if (l.isLive()) {
        live.add(l.domain());
      }
    }
    return Collections.unmodifiableSet(live);
  }

  /** The book this meter keeps for {@code domain}, if it has a counter there; for tests. */
  @Nullable DomainLedger ledger(EnergyDomain domain) {
    return ledgers.get(domain);
  }

  /** The update period the last probe learnt for {@code domain}'s counter; 0 if not live. */
  long updatePeriodNanos(EnergyDomain domain) {
    DomainLedger l = ledgers.get(domain);
    return l == null ? 0 : l.updatePeriodNanos();
  }

  /**
   * Probes every readable counter now, on the calling thread (it burns CPU for one probe duration),
   * and returns the resulting statuses.
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
    HostPackages onHost = host;
    Set<EnergyDomain> covered = coveredDomains(onHost.cover(domains));
    Map<DomainLedger, DomainLedger.Share> entered = new LinkedHashMap<>();
    // A host list that may lack a package the serve ran on covers no serve wholly.
    boolean everyDomainHasACounter = !covered.isEmpty() && onHost.complete();
    try {
      for (EnergyDomain d : covered) {
        DomainLedger ledger = ledgers.get(d);
        if (ledger == null) {
          everyDomainHasACounter = false;
        } else {
          entered.put(ledger, ledger.enter(now));
        }
      }
    } catch (RuntimeException | Error e) {
      // No window to close comes back: the shares entered so far must not stay open for good.
      try {
        leaveEvery(entered, now, e);
      } finally {
        entered.forEach(DomainLedger::countedOut);
      }
      throw e;
    }
    try {
      tellOtherMeters(entered.keySet(), now, true);
      scheduleDueProbes(now);
      timedReads.start();
      watch.start();
      return new Window(entered, everyDomainHasACounter);
    } catch (RuntimeException | Error e) {
      // As above, once the shares are in every book: no window comes back to close them.
      try {
        leaveEvery(entered, now, e);
      } finally {
        try {
          tellOtherMeters(entered.keySet(), now, false);
        } finally {
          entered.forEach(DomainLedger::countedOut);
        }
      }
      throw e;
    }
  }

  /**
   * As {@link #open}, which covers this meter's host packages itself: those its discovery's options
   * give, not {@link HostPackages#ofThisProcess()}.
   */
  @Override
  public MeterWindow openServe(Set<EnergyDomain> declared) {
    return open(declared);
  }

  /**
   * Tells every other open meter of the process that reads one of {@code mine}'s counters (the same
   * hardware, {@link EnergyChannel#hardware()}, whatever domain it names) that a window opened on
   * it ({@code entered}) or left it. Two meters (stewards that discovered with different options)
   * read the same hardware: a serve alone in each meter's books is not alone on the package, and
   * both would otherwise be graded a reading of the whole counter. Each told ledger reads its
   * channel first, so the energy before the event is split among the windows open before it, and a
   * window opened there within an update period after a leave holds that serve's tail. Windows open
   * before a meter was made, or not yet told, are in {@link OpenWindows}. Called holding no
   * ledger's books; an open tells after entering, a leave before it is counted out. The JVM failing
   * in a told meter's read is thrown on once every meter was told.
   */
  private void tellOtherMeters(Iterable<DomainLedger> mine, long nowNanos, boolean entered) {
    List<CounterMeter> others = new ArrayList<>();
    synchronized (METERS) {
      for (CounterMeter m : METERS) {
        if (m != this) {
          others.add(m);
        }
      }
    }
    // Every meter is told whatever one throws (the JVM failing in one's read): a meter left untold
    // splits the energy before the event among the windows open after it.
    Throwable first = null;
    for (CounterMeter other : others) {
      for (DomainLedger l : mine) {
        DomainLedger theirs = other.byHardware.get(l.hardware());
        if (theirs == null) {
          continue;
        }
        try {
          if (entered) {
            theirs.foreignEntered(nowNanos);
          } else {
            theirs.foreignLeft(nowNanos);
          }
        } catch (RuntimeException | Error e) {
          first = FirstFailureWins.keep(first, e);
        }
      }
    }
    if (first != null) {
      throwUnchecked(first);
    }
  }

  /** The declared domains, plus the DRAM of each declared package where a counter reads it. */
  private Set<EnergyDomain> coveredDomains(Set<EnergyDomain> declared) {
    Set<EnergyDomain> all = new LinkedHashSet<>(declared);
    for (EnergyDomain d : declared) {
      if (d.kind() == EnergyDomain.Kind.CPU_PACKAGE) {
        EnergyDomain dram = EnergyDomain.dram(d.index());
        if (ledgers.containsKey(dram)) {
          all.add(dram);
        }
      }
    }
    return all;
  }

  /**
   * How often the background timer reads every counter: twice per wrap period of the counter that
   * wraps soonest at the most power its zone is taken to draw, so no wrap goes unseen; empty when
   * no counter can wrap.
   */
  OptionalLong pollEveryNanos() {
    long shortestGap = Long.MAX_VALUE;
    for (DomainLedger l : ledgers.values()) {
      shortestGap = Math.min(shortestGap, l.maxReadGapNanos());
    }
    return shortestGap == Long.MAX_VALUE
        ? OptionalLong.empty()
        : OptionalLong.of(Math.max(1, shortestGap / 2));
  }

  /**
   * Logs what a read on the meter's own thread threw (an Error out of a driver's read, which the
   * ledger counts against its counter, {@link DomainLedger#ERRORS_BEFORE_SET_ASIDE}): thrown on
   * there, it would end in the scheduled task's future, which nobody reads, and the counter's fault
   * would go unheard until it was set aside. The chain goes on either way.
   */
  private void ownReadThrew(String what, Throwable e) {
    LOG.warn(
        "energy meter {}: its {} of the counters threw; they are read again at the next",
        name,
        what,
        e);
  }

  /**
   * Logs a failure to schedule the meter's own reads, unless the meter was closed meanwhile: at
   * WARN the first since a schedule last worked, at DEBUG the rest.
   */
  private void scheduleFailed(String what, AtomicBoolean warned, Throwable e) {
    if (!closed.get()) {
      LOG.atLevel(warned.compareAndSet(false, true) ? Level.WARN : Level.DEBUG)
          .log(
              "energy meter {}: scheduling its {} failed ({}); tried again at the next window, whose"
                  + " figure is not a reading until it runs",
              name,
              what,
              e.toString());
    }
  }

  /**
   * How often the watch reads the counters while windows are open on them: the shortest {@link
   * DomainLedger#watchEveryNanos()} of the live counters with a window open; empty when there is
   * none, and then nothing is read for the windows' sake.
   */
  OptionalLong watchEveryNanos() {
    long every = Long.MAX_VALUE;
    for (DomainLedger l : ledgers.values()) {
      long e = l.watchEveryNanos();
      if (e > 0) {
        every = Math.min(every, e);
      }
    }
    return every == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(every);
  }

  /**
   * Reads each live counter that has a window open on it, once: the stall rule is checked at reads,
   * and a window is graded a reading only if a read proved its counter moving within the stall
   * bound before its close (SPEC 40 §3), so the meter's own thread reads them while windows are
   * open, never the serve's.
   */
  void watchOpenWindows() {
    everyOf(
        ledgers.values().stream().filter(l -> l.watchEveryNanos() > 0).toList(),
        DomainLedger::poll);
  }

  /**
   * Reads every counter once, so that a counter that wraps is seen between wraps however long a
   * window stays open. The meter's own thread calls this periodically.
   */
  void pollCounters() {
    everyOf(ledgers.values(), DomainLedger::poll);
  }

  /**
   * Runs {@code step} on each of {@code ledgers}, every one of them whatever another's throws: a
   * read (an Error out of a driver's read, which the ledger does not turn into a failed read)
   * stopped at the first, a counter that throws at every read would leave those after it unread by
   * the timer and the watch for the meter's life, their wraps unseen and no window on them a
   * reading; a release (the JVM failing in one channel's) stopped at the first would leave every
   * later counter's native resources held for good. The first thing thrown is thrown on once all
   * have run, the rest suppressed in it.
   */
  private static void everyOf(Iterable<DomainLedger> ledgers, Consumer<DomainLedger> step) {
    Throwable first = null;
    for (DomainLedger l : ledgers) {
      try {
        step.accept(l);
      } catch (RuntimeException | Error e) {
        first = FirstFailureWins.keep(first, e);
      }
    }
    if (first instanceof Error e) {
      throw e;
    }
    if (first instanceof RuntimeException e) {
      throw e;
    }
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed() {
    return closed.get();
  }

  /**
   * Stops background probes, waits for one in progress to stop (it is interrupted), and then
   * releases the counters' native resources. A probe that does not stop within 30 s (a call into a
   * counter that hangs) releases them as it ends. Every counter is released whatever another's
   * release throws; only the JVM failing in one ({@code JvmFailure}) is thrown on, once all are.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    METERS.remove(this);
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
    long waitNanos = closeWaitNanos;
    long deadline = System.nanoTime() + waitNanos;
    boolean interrupted = false;
    boolean gaveUp = false;
    synchronized (probeLock) {
      while (probesRunning > 0 && !gaveUp) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          // Left to the probe's end (runProbe): returned unreleased, they stayed so for good.
          releaseWhenProbesEnd = true;
          gaveUp = true;
        } else {
          try {
            TimeUnit.NANOSECONDS.timedWait(probeLock, left);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
    }
    try {
      if (gaveUp) {
        LOG.warn(
            "a liveness probe did not stop within {} ms; energy counters are released once it ends",
            waitNanos / 1_000_000);
      } else {
        releaseLedgers();
      }
    } finally {
      // Kept for the caller whatever the releases throw (the JVM failing in one): the wait above
      // took the flag, and the caller's own shutdown may be what asked it to stop.
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Releases every counter, each whatever another's release throws (only the JVM failing passes
   * {@link DomainLedger#release}), the first thrown on once all are released.
   */
  private void releaseLedgers() {
    everyOf(ledgers.values(), DomainLedger::release);
  }

  /** Waits at most {@code wait} for a running probe at {@link #close()}; tests. */
  void closeWait(Duration wait) {
    if (wait.isNegative() || wait.isZero()) {
      throw new IllegalArgumentException("wait must be positive: " + wait);
    }
    closeWaitNanos = wait.toNanos();
  }

  /**
   * Starts one background probe of every counter that is due. One probe for all of them, because
   * each probe disturbs every window on every domain (its burn lands somewhere on the CPU).
   */
  private void scheduleDueProbes(long now) {
    if (closed.get()) {
      return;
    }
    List<DomainLedger> due = new ArrayList<>();
    for (DomainLedger l : ledgers.values()) {
      if (l.claimProbe(now)) {
        due.add(l);
      }
    }
    if (due.isEmpty()) {
      return;
    }
    // Set by whichever comes first: the probe starting, or its claims being given back because
    // handing it over failed. A ScheduledThreadPoolExecutor queues a task before it starts the
    // thread that then fails to start: the probe taken for lost may run after all, once a later
    // task starts the thread, beside the probe of the claims made again meanwhile (a second core
    // burnt), and give back their claims while that probe runs. One flag per probe, not one count
    // for the meter: a failure to hand over one probe must not void another one queued before it.
    AtomicBoolean startedOrGivenBack = new AtomicBoolean();
    try {
      reprobeExecutor.execute(
          () -> {
            if (!startedOrGivenBack.compareAndSet(false, true)) {
              return; // its hand-over failed and its claims were given back
            }
            try {
              runProbe(due);
            } finally {
              due.forEach(DomainLedger::probeFinished);
            }
          });
    } catch (RuntimeException | Error e) {
      // Refused (closed meanwhile), or the executor could not start a thread for it (an
      // OutOfMemoryError 'unable to create native thread'): left claimed, those counters would
      // never be probed again, and one demoted would stay an estimator for the life of the meter.
      // Claimed again at the next open or close; the serve that met it is no place for the fault.
      // A probe that started all the same gives back its claims when it ends.
      if (startedOrGivenBack.compareAndSet(false, true)) {
        due.forEach(DomainLedger::probeFinished);
      }
      if (!(e instanceof RejectedExecutionException)) {
        LOG.atLevel(warnedProbeFailed.compareAndSet(false, true) ? Level.WARN : Level.DEBUG)
            .log(
                "energy meter {}: starting a liveness probe failed ({}); tried again at the next"
                    + " window",
                name,
                e.toString());
      }
      return;
    }
    warnedProbeFailed.set(false);
  }

  private void runProbe(List<DomainLedger> targets) {
    if (targets.isEmpty()) {
      return;
    }
    synchronized (probeLock) {
      if (closed.get()) {
        return;
      }
      probesRunning++;
    }
    Throwable probeThrew = null;
    try {
      probeUnderLoad(targets);
    } catch (RuntimeException | Error e) {
      probeThrew = e;
      throw e;
    } finally {
      boolean release;
      synchronized (probeLock) {
        probesRunning--;
        probeLock.notifyAll();
        release = probesRunning == 0 && releaseWhenProbesEnd;
        if (release) {
          releaseWhenProbesEnd = false;
        }
      }
      if (release) {
        releaseAfter(probeThrew);
      }
    }
  }

  /**
   * Releases the counters a close left to the probe's end; what a release throws (the JVM failing)
   * is added to what the probe threw, if it threw, rather than thrown in its place, which would
   * lose the probe's own fault.
   */
  private void releaseAfter(@Nullable Throwable probeThrew) {
    try {
      releaseLedgers();
    } catch (RuntimeException | Error e) {
      if (probeThrew == null) {
        throw e;
      }
      probeThrew.addSuppressed(e);
    }
  }

  private void probeUnderLoad(List<DomainLedger> targets) {
    // The probe's burn heats the CPU packages and DRAM, and its GPU work the GPUs, whichever
    // counter is under probe: every domain is disturbed, not only the probed ones, and in every
    // meter of the process, not only this one.
    // The ledgers whose disturbance began, guarded by METERS: a meter made during the probe adds
    // its own once begun. Registered, and each disturbance begun, inside the try whose finally
    // takes the probe out again: anything thrown between (a stack overflow entering a ledger's
    // books) would otherwise leave the probe registered for good, every meter made later
    // disturbed as it is made and never again a reading, and the ledgers begun so far with it.
    ArrayList<DomainLedger> disturbed = new ArrayList<>();
    // Every probe begun is ended, whatever is thrown on the way (an Error out of a native read):
    // a counter left under probe would say "re-probing" until its next periodic probe, and a RAPL
    // zone would keep leaving its reads unjudged, its interval no longer following its load.
    List<DomainLedger> begun = new ArrayList<>();
    List<LivenessVerdict> verdicts = List.of();
    Throwable failure = null;
    try {
      List<DomainLedger> toDisturb;
      synchronized (METERS) {
        toDisturb = everyLedgerInProcess();
        // Room for every one now, so no ledger is begun and then left out for want of it.
        disturbed.ensureCapacity(toDisturb.size());
        PROBES_RUNNING.add(disturbed);
      }
      for (DomainLedger l : toDisturb) {
        // Where a read holds the ledger's books past their wait, counted when they are next taken:
        // this probe does not wait on it.
        l.beginDisturbance();
        synchronized (METERS) {
          disturbed.add(l);
        }
      }
      for (DomainLedger l : targets) {
        begun.add(l);
        if (!l.beginProbe()) {
          // A read holds its books past their wait: probed, it would hold this probe too.
          begun.remove(begun.size() - 1);
        }
      }
      verdicts = begun.isEmpty() ? List.of() : probeAndSettle(List.copyOf(begun), disturbed);
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      long now = clock.nanoTime();
      // A close that gave up waiting for this probe leaves the release to its end: the verdicts
      // then grade nothing, and are not said to make figures fall back to the estimator.
      boolean meterClosed = closed.get();
      // What a counter's end threw (an Error out of its channel told the probe ended, the JVM
      // failing): every other counter's end, and the disturbances' end, still run. Thrown out of
      // this loop, it left the probe registered for good, every window of the process disturbed.
      Throwable endThrew = null;
      try {
        for (int i = 0; i < begun.size(); i++) {
          try {
            begun
                .get(i)
                .endProbe(
                    i < verdicts.size()
                        ? verdicts.get(i)
                        : LivenessVerdict.notLive(
                            CounterIssue.READ_FAILED,
                            // The words of a channel's Error that ended the probe (one out of its
                            // recheck) may throw: here, they skipped every later counter's end.
                            failure == null
                                ? "probe failed"
                                : "probe failed: " + ThrowableWords.describe(failure)),
                    now,
                    meterClosed);
          } catch (RuntimeException | Error e) {
            endThrew = FirstFailureWins.keep(endThrew, e);
          }
        }
      } finally {
        List<DomainLedger> disturbedToEnd;
        synchronized (METERS) {
          PROBES_RUNNING.remove(disturbed);
          disturbedToEnd = List.copyOf(disturbed);
        }
        for (DomainLedger l : disturbedToEnd) {
          l.endDisturbance();
        }
      }
      if (endThrew != null) {
        if (failure != null) {
          if (failure != endThrew) {
            failure.addSuppressed(endThrew); // the probe's own fault is what its caller gets
          }
        } else {
          throwUnchecked(endThrew);
        }
      }
    }
  }

  /**
   * Probes {@code targets} under the probe's load (and its GPU work where one is probed), then
   * waits for the load's tail ({@link #settleAfterLoad}); returns one verdict per target.
   */
  private List<LivenessVerdict> probeAndSettle(
      List<DomainLedger> targets, List<DomainLedger> disturbed) {
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
    settleAfterLoad(verdicts, disturbed);
    return verdicts;
  }

  /**
   * Waits, burning nothing, one update period of this meter's slowest live counter after the
   * probe's load stopped, before the disturbance ends. A counter's value lags the energy drawn by
   * up to one period: read sooner, it does not yet hold the end of the probe's burn (or GPU work),
   * which would then land in the first window opened after the probe, graded as that serve's
   * reading. At 100 ms on a GPU board under the probe's work, that tail is tens of joules. Every
   * disturbed counter is waited for, another meter's too: the disturbance ends for all of them at
   * once, so it must outlast the slowest one's lag (SPEC 40 §2).
   */
  private void settleAfterLoad(List<LivenessVerdict> verdicts, List<DomainLedger> disturbed) {
    long settleNanos = 0;
    for (LivenessVerdict v : verdicts) {
      settleNanos = Math.max(settleNanos, v.updatePeriodNanos());
    }
    List<DomainLedger> disturbedNow;
    synchronized (METERS) {
      disturbedNow = List.copyOf(disturbed);
    }
    for (DomainLedger l : disturbedNow) {
      settleNanos = Math.max(settleNanos, l.updatePeriodNanos());
    }
    clock.idleUntil(clock.nanoTime() + settleNanos);
  }

  /** This meter's ledgers, then those of every other open meter of the process. */
  private List<DomainLedger> everyLedgerInProcess() {
    List<DomainLedger> all = new ArrayList<>(ledgers.values());
    synchronized (METERS) {
      for (CounterMeter other : METERS) {
        if (other != this) {
          all.addAll(other.ledgers.values());
        }
      }
    }
    return all;
  }

  /** One serve's window. Not thread-safe; it belongs to one serve. */
  private final class Window implements MeterWindow {
    private final Map<DomainLedger, DomainLedger.Share> entered;
    private final boolean everyDomainHasACounter;
    private boolean done;

    Window(Map<DomainLedger, DomainLedger.Share> entered, boolean everyDomainHasACounter) {
      this.entered = entered;
      this.everyDomainHasACounter = everyDomainHasACounter;
    }

    @Override
    public Energy close(long estimatedUj) {
      if (estimatedUj < 0) {
        leaveAll();
        throw new IllegalArgumentException("estimatedUj must be non-negative: " + estimatedUj);
      }
      Map<DomainLedger, DomainLedger.Exit> exits = leaveAll();
      boolean trusted = everyDomainHasACounter;
      boolean overlapped = false;
      long measured = 0;
      double apportioned = 0;
      for (DomainLedger.Exit exit : exits.values()) {
        trusted &= exit.trusted();
        // A counter that did not move over a serve that did work did not see the work.
        trusted &= !(estimatedUj > 0 && exit.measuredUj() == 0);
        overlapped |= exit.overlapped();
        measured = Unsigned.saturatingAdd(measured, exit.measuredUj());
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
      Map<DomainLedger, DomainLedger.Exit> exits;
      try {
        exits = leaveEvery(entered, now, null);
      } finally {
        // Counted out only once the other meters have read up to this leave: until then their
        // windows' shares are split with this one still counted, which gives them less, never more.
        try {
          tellOtherMeters(entered.keySet(), now, false);
        } finally {
          entered.forEach(DomainLedger::countedOut);
        }
      }
      scheduleDueProbes(now);
      return exits;
    }
  }

  /**
   * Leaves every share, even when leaving one throws: a share left open marks every later window on
   * its domain overlapped, so none of them could be a reading again. Returns the exits; the first
   * failure is thrown once all are left, later ones suppressed onto it (onto {@code failure} when
   * one is already being thrown).
   */
  private static Map<DomainLedger, DomainLedger.Exit> leaveEvery(
      Map<DomainLedger, DomainLedger.Share> entered, long nowNanos, @Nullable Throwable failure) {
    Map<DomainLedger, DomainLedger.Exit> exits = new LinkedHashMap<>();
    Throwable first = failure;
    for (Map.Entry<DomainLedger, DomainLedger.Share> e : entered.entrySet()) {
      try {
        exits.put(e.getKey(), e.getKey().leave(e.getValue(), nowNanos));
      } catch (RuntimeException | Error thrown) {
        first = FirstFailureWins.keep(first, thrown);
      }
    }
    if (failure == null && first != null) {
      throwUnchecked(first);
    }
    return exits;
  }

  private static void throwUnchecked(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    throw (Error) t;
  }

  /**
   * One series of the meter's own reads on its thread (the timed reads of every counter, or the
   * watch of the counters with windows open): each read schedules the next at the series' interval
   * as it stands then, so a counter seen drawing more than it was read for shortens the interval,
   * which a fixed rate would not follow; a series with nothing to read (no window open, for the
   * watch) or a closed meter stops, and the next open starts it again.
   */
  private final class OwnReads {
    private final String what;
    private final Supplier<OptionalLong> every;
    private final Runnable read;
    // Scheduled on ownedExecutor, or running: set by the open that finds it clear; cleared when it
    // stops, or when scheduling it failed, so that the next open schedules it again.
    private final AtomicBoolean running = new AtomicBoolean();
    // The chain now current. A ScheduledThreadPoolExecutor queues a task before it starts the
    // thread that then fails to start: a chain whose scheduling failed may run after all, beside
    // the one the next open starts, and each would read for the meter's life.
    private final AtomicLong chain = new AtomicLong();
    // A WARN said scheduling failed, and no schedule has worked since: a failure that lasts (no
    // native thread to be had) is met again at every open, and one line says it.
    private final AtomicBoolean warned = new AtomicBoolean();

    OwnReads(String what, Supplier<OptionalLong> every, Runnable read) {
      this.what = what;
      this.every = every;
      this.read = read;
    }

    /**
     * Starts the series on the meter's own thread if none is running; on the serve's path this is
     * one atomic read while it runs. A meter handed an executor (tests) is read by whoever calls
     * {@link #pollCounters()} or {@link #watchOpenWindows()}.
     */
    void start() {
      ScheduledExecutorService executor = ownedExecutor;
      if (executor != null && !running.get() && running.compareAndSet(false, true)) {
        schedule(executor, chain.get());
      }
    }

    /**
     * Schedules the next read, or stops the series when there is nothing to read. Cleared before
     * the last look: an open after it sees the series stopped and starts it again.
     */
    private void schedule(ScheduledExecutorService executor, long current) {
      if (chain.get() != current) {
        return; // its scheduling failed, and an open started another chain
      }
      OptionalLong next = every.get();
      while (next.isEmpty() || closed.get()) {
        running.set(false);
        next = every.get();
        if (next.isEmpty() || closed.get() || !running.compareAndSet(false, true)) {
          return;
        }
      }
      try {
        var unused =
            executor.schedule(
                () -> {
                  if (chain.get() != current) {
                    return; // queued by a schedule that failed
                  }
                  // The next read is scheduled whatever this one throws (an Error out of a
                  // driver's read): a series ended here would stay marked running, never started
                  // again, the counters unread between windows (wraps unseen) or no window long
                  // enough to be a reading able to pass the stall bound, for the meter's life.
                  try {
                    read.run();
                  } catch (RuntimeException | Error e) {
                    ownReadThrew(what, e);
                  } finally {
                    schedule(executor, current);
                  }
                },
                next.getAsLong(),
                TimeUnit.NANOSECONDS);
        warned.set(false);
      } catch (RuntimeException | Error e) {
        // Closed meanwhile, nothing left to read; or the executor refused or could not start its
        // thread (an OutOfMemoryError where no native thread can be made): the series would end
        // here for the meter's life, so the next open starts it again. The serve that opened is
        // no place for the meter's own scheduling fault.
        chain.incrementAndGet();
        running.set(false);
        scheduleFailed(what, warned, e);
      }
    }
  }
}
