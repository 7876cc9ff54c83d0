package org.meshjava.energy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.ThrowableWords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The book a meter keeps for one domain: its counter, its liveness, and the windows open on it.
 *
 * <p>Design note. Every window that declares the domain is registered here for as long as it is
 * open, whether or not the counter is live: its work lands on the domain either way, so any window
 * that overlapped it must not be graded a lone hardware reading. Every window open and close is an
 * <em>event</em>, and the counter is read at each one. The energy between two consecutive events (a
 * <em>segment</em>) is split equally among the windows open during it (every meter's on the same
 * counter, {@link OpenWindows}; this ledger keeps only its own windows' shares), and a window that
 * shared the domain with another at any moment is <em>overlapped</em>. So a window alone on the
 * domain receives exactly its counter delta, which may be graded a hardware reading; a window that
 * shared the domain receives a model of its share, which may not (§3.3). Shares of the windows open
 * in a segment sum to the segment's energy. Idle and background power are inside every segment;
 * they are not subtracted. A window opened less than one update period after another closed is
 * overlapped too: the counter lags by up to a period, so the end of the closed serve is still to be
 * published and lands in the new window's delta (SPEC 40 §3, the tail rule).
 *
 * <p>The liveness <em>epoch</em> changes whenever the trust in a reading across it changes: a probe
 * of any counter starts or ends (its burn heats the CPU and its GPU work the GPUs, whichever
 * counter it probes: a <em>disturbance</em>), the counter is demoted, or two reads are further
 * apart than the counter can be read without missing a wrap. A window is graded from the counter
 * only if the epoch at its close is the one at its open and no disturbance was in progress.
 *
 * <p>A live counter keeps proving itself: it must change at least every {@link #STALL_PERIODS}
 * update periods (learnt by its last probe), or the next read demotes it as stalled; a window
 * shorter than {@link #MIN_WINDOW_PERIODS} update periods (the probe's, widened when reads prove
 * the counter now refreshes more slowly) is too short for the counter to resolve and is never
 * graded from it.
 *
 * <p>Thread-safe: every method holds the ledger's lock (its <em>books</em>), which also serialises
 * reads of the channel (channels are not thread-safe) and its release. A read is made holding the
 * books, so one that never returns (an NVML call on a board fallen off the bus, a sysfs read of a
 * wedged device) holds them for good: every method a serve, a health check, a probe or the meter's
 * own thread calls waits for them at most {@link #BOOKS_WAIT_NANOS} ({@link #takeBooks}), and then
 * goes on without them, its figure the estimator's (a probe's, a counter unproven). Such a wait
 * running out is most likely a read that held the books too long, but may be contention or a pause
 * of the process; what is known is said ({@link #busyFacts}). Whoever takes them next demotes the
 * counter (§3.3: it is no longer proven live), and applies what those that gave up could not book
 * ({@link #settleMissed}). Later waiters give up at once until then, so a counter that hangs costs
 * one wait, not one per serve.
 */
final class DomainLedger implements LivenessProbe.Target {
  private static final Logger LOG = LoggerFactory.getLogger(DomainLedger.class);

  /**
   * The fewest update periods a window must span to be graded from the counter. A reading lags the
   * true total by up to one update period at each end, so the delta of a window of {@code k}
   * periods is off by at most one period's energy: at most 10% at {@code k = 10}.
   */
  static final int MIN_WINDOW_PERIODS = 10;

  /**
   * How many update periods a live counter may go without changing before a read demotes it. A
   * domain always draws power (idle included), so a live counter changes every period; the period
   * is itself the longest gap the probe saw, so five of them is a wide margin.
   */
  static final int STALL_PERIODS = 5;

  /**
   * How many update periods apart the meter's watch reads a live counter while a window is open on
   * it: at two, the latest change the reads prove before a close is at most about three periods old
   * (a refresh, the read gap), well inside {@link #STALL_PERIODS}, with room for a late timer.
   */
  static final int WATCH_PERIODS = 2;

  /**
   * The watch never reads a counter more often than this, whatever its period: the probe times
   * changes to a millisecond at best, and a period learnt below it would otherwise spin the meter's
   * thread. A counter that needs closer reads to prove it moving is then graded down, never up.
   */
  static final long MIN_WATCH_NANOS = 1_000_000L;

  /**
   * The watch reads a counter whose refresh slowed at most this many times per probed period: a
   * counter near the stall bound would otherwise be read ever more often, and one past it is
   * demoted anyway.
   */
  static final long MAX_WATCH_SPEEDUP = 5;

  /**
   * How long the re-probe after the second demotion in a row waits; each further one in the run
   * waits twice as long, up to the periodic re-probe interval. A counter that a probe's burn moves
   * but that stalls again at idle (or keeps failing to read) would otherwise be re-probed at every
   * window: a probe burns a core and disturbs every window of the process, so a flapping counter
   * would keep every figure {@code Estimator} and log a demotion per serve.
   */
  static final long FIRST_REPROBE_BACKOFF_NANOS = 10_000_000_000L;

  /**
   * How far back the power bound is also checked from each read, besides the span since the read
   * before it. Each span is allowed the bound's slack once, so reads close together (the watch
   * reads a RAPL zone every 2 ms, an Apple rail every 40 ms) would otherwise admit a draw many
   * times the bound, a slack per read: 1.7 kW on a 1 kW rail read every 40 ms never leaps past 140
   * J in one gap. Each earlier total counts from the earliest it can have been published, the start
   * of the read before the one that first returned it, so the span from it carries a read gap
   * besides the slack: over 2 s, a board watched every 300 ms passed 2.3 kW on its 2 kW bound for
   * good (a draw is caught once it lasts the gap and the slack over {@code f - 1}). Over 10 s, a
   * draw 5 % past the bound is caught within 8 s even so; a burst past it shorter than the slack is
   * not refused, as over one gap.
   */
  static final long SUSTAINED_SPAN_NANOS = 10_000_000_000L;

  /**
   * How far apart the earlier totals the bound is checked from are kept: a draw past the bound by a
   * factor {@code f} is caught once it has lasted the slack and the read gap over {@code f - 1}
   * plus this (243 ms at 1.7 times a 100 ms slack, reads close together), with at most {@link
   * #SUSTAINED_SPAN_NANOS} over this totals kept.
   */
  static final long ANCHOR_SPACING_NANOS = 100_000_000L;

  /**
   * How many reads since the probe that last proved the counter live may throw an {@link Error}
   * before it is demoted and set aside ({@link #readChannel}): one such read is thrown on as a
   * fault of the process, as anything the meter cannot name is, but a counter that keeps throwing
   * is a broken counter, not a broken serve. Counted since the probe, not in a row: no read of a
   * working counter throws an Error at all, and one that throws at every other read would otherwise
   * throw into the serves on its domain for the life of the process. The periodic re-probe bounds
   * the span they are counted over.
   */
  static final int ERRORS_BEFORE_SET_ASIDE = 3;

  /**
   * How long a window may stay open before it is taken as gone: no serve's window lasts an hour,
   * and one that does was lost (a caller that dropped its handle) or belongs to an engine that
   * never returned. Such a window would otherwise overlap every later window on the counter, in
   * every meter of the process (the count is process-wide), for the life of the process. Past this
   * age it is taken out of the books at the next read of the counter by any meter of the process
   * ({@link OpenWindows#expireStale}), the one that opened it closed since or not: it receives no
   * more energy, no longer overlaps later windows, and its own figure, if it ever closes, is the
   * estimator's. An engine still working past it is background load from then on, as another
   * process's is.
   */
  static final long STALE_WINDOW_NANOS = 3_600_000_000_000L;

  /**
   * How long a method waits for the books held by another thread before it goes on without them: a
   * read of a working counter takes microseconds (a sysfs file) to a few milliseconds (an NVML
   * call), so one held for a second is a read that hangs, not a busy counter.
   */
  static final long BOOKS_WAIT_NANOS = 1_000_000_000L;

  // What busyFacts names a holder of the books in a call into the channel as.
  private static final String READING = "a read of the counter";
  private static final String RELEASING = "a release of the counter's channel";
  // What the meter's close takes the books for; a release run by a settle is the close's too.
  private static final String CLOSING = "the meter's close";

  /**
   * One window's stake in this domain. Guarded by the books, but for a share the books were never
   * taken for ({@code booked} false), which only its own serve's thread touches.
   */
  static final class Share {
    // Its place in the process's count of windows on the counter, which also keeps its age: from
    // when the enter began, by the caller's clock, brought back to any reading earlier than that (a
    // step back of the clock), or a window lost before the step would overlap later ones for the
    // hour and the step besides.
    private final OpenWindows.Counted counted;
    private final long epoch;
    private final long totalAtOpen;
    private final long openReadEndNanos;
    private final boolean trustedAtOpen;
    // How long after the read at the latest close before it this window's open read began; empty
    // (Long.MAX_VALUE) when no window had closed. Checked again at the close against the period as
    // it stands then: a period widened meanwhile may put the open within the closed serve's tail.
    private final long sinceLastLeaveNanos;
    private double apportionedUj;
    private boolean overlapped;
    private boolean left;
    // Taken out of the books past STALE_WINDOW_NANOS.
    private boolean stale;
    // Registered in the books (false when the wait for them ran out: counted in OpenWindows only).
    private final boolean booked;

    private Share(
        OpenWindows.Counted counted,
        long epoch,
        long totalAtOpen,
        long openReadEndNanos,
        boolean trustedAtOpen,
        long sinceLastLeaveNanos,
        boolean booked) {
      this.counted = counted;
      this.booked = booked;
      this.epoch = epoch;
      this.totalAtOpen = totalAtOpen;
      this.openReadEndNanos = openReadEndNanos;
      this.trustedAtOpen = trustedAtOpen;
      this.sinceLastLeaveNanos = sinceLastLeaveNanos;
    }
  }

  /** An earlier total and the earliest it can have been published. */
  private record Anchor(long total, long sinceNanos) {}

  /**
   * What one window learned from this domain at its close.
   *
   * @param trusted the counter was live, undisturbed and in the same epoch from open to close, and
   *     the window was long enough for it to resolve
   * @param measuredUj the counter's delta over the window
   * @param apportionedUj this window's share by the segment rule
   * @param overlapped another window shared the domain at some moment
   */
  record Exit(boolean trusted, long measuredUj, double apportionedUj, boolean overlapped) {}

  private final EnergyChannel channel;
  private final Object hardware;
  private final LivenessPolicy policy;
  private final ProbeClock clock;
  private final long reprobeEveryNanos;
  private final List<Share> open = new ArrayList<>();
  // The books: every field below but those marked otherwise is guarded by it.
  private final ReentrantLock books = new ReentrantLock();
  // How long a wait for the books lasts at most (BOOKS_WAIT_NANOS, shorter in tests).
  private volatile long booksWaitNanos = BOOKS_WAIT_NANOS;
  // Not guarded. Set when a wait for the books ran out, and again after each thing the one that
  // gave up left for the books (below): the next holder settles them (settleMissed). While set, a
  // wait for the books gives up at once: the read holding them has not been seen to return.
  private volatile boolean waitRanOut;
  // Not guarded. Windows whose close could not take the books: still in open until settled.
  private final ConcurrentLinkedQueue<Share> leftUnbooked = new ConcurrentLinkedQueue<>();
  // Not guarded. Disturbances that began, less those that ended, while the books were held.
  private final AtomicInteger disturbancesUnbooked = new AtomicInteger();
  // Not guarded. The meter's close asked for the release: set before its wait for the books, so
  // that whoever sees that wait run out sees the close too; released at the settle if the close
  // could not take them.
  private volatile boolean releaseUnbooked;
  // Not guarded. A probe's end that could not take the books: applied at the settle, the counter
  // unproven whatever the probe saw (endProbeUnproven).
  private volatile boolean probeEndUnbooked;
  // Not guarded. The meter was closed while a probe of this counter ran (endProbe): its verdict
  // grades nothing.
  private volatile boolean meterClosed;
  // Not guarded. A read of the probe under way gave up waiting for the books: its verdict (not
  // live) is of the books, not the counter, which is then re-probed as after a demotion
  // (endProbeHeld), not left to the periodic re-probe. Cleared as a probe begins and ends.
  private volatile boolean probeReadMissed;
  // Not guarded. What the holder of the books is doing (null while they are free), since when
  // (System.nanoTime), and which call into the channel it is in, if any (READING: its total, or a
  // probe's recheck of the board; RELEASING: its release, an NVML shutdown that can hang as a read
  // can): what a wait that runs out knows.
  private volatile @Nullable String holderDoing;
  private volatile long holderSinceNanos;
  private volatile @Nullable String holderInChannel;
  // Not guarded. What the last wait that ran out knew (busyFacts): the status until the settle, and
  // the settle's demotion, say it.
  private volatile String busyFacts = "";
  // Not guarded. The channel's maxReadGapNanos as of the last time the books were held.
  private volatile long maxReadGapSeenNanos;
  // Whose windows, in the process's count, are this ledger's.
  private final OpenWindows.Owner owner = new OpenWindows.Owner();
  // An enter is reading the counter: its window is in OpenWindows' count already, not yet in open.
  private boolean entering;
  // The window an enter is reading the counter for, and whether that read's expiry counted it out:
  // the clock moved an hour between the caller's reading and the read (a wait for the books, a
  // thread descheduled, a leap). Booked all the same, it would stay in open, never marked stale,
  // and
  // a lost one would overlap every later window here for the life of the process.
  private OpenWindows.@Nullable Counted enteringWindow;
  // An expiry may have counted windows out without taking them out of these books (it was cut
  // short, expireStale): the next sweeps open for them.
  private boolean expiryOwed;
  // Not guarded. Run after a read's expiry counted windows out; a no-op but in tests.
  private volatile Runnable afterCountOut = () -> {};
  // Not guarded. Run as a wait for the books has run out, before its caller leaves anything for
  // the settle; a no-op but in tests (the holder returning in that gap, which no fake can time).
  private volatile Runnable afterWaitRanOut = () -> {};
  private boolean enteringExpired;
  private CounterState state = CounterState.NOT_LIVE;
  private @Nullable CounterIssue issue = CounterIssue.PROBING;
  private String detail = "not yet probed";
  private long epoch;
  private int disturbances;
  private long lastTotal;
  private long lastMark;
  private boolean haveTotal;
  // Before the first read, the earliest time there is: a monotonic clock has no origin and may read
  // negative, and a 0 here would then stay the last read's time, hiding every read gap.
  private long lastReadNanos = Long.MIN_VALUE;
  // When the last read that returned a total began and ended: a window spans its counter from
  // the end of its open's read to the start of its close's, which the caller's clock readings,
  // taken before any read (or the wait for the books), overstate.
  private long lastReadStartNanos;
  private long lastReadEndNanos;
  // The earliest the counter can have published lastTotal: the start of the last read that still
  // returned an older total (the first read's start for the first). A value read late, the counter
  // not having refreshed for a while, holds energy up to its publication only, so the increment to
  // the next value spans from there, not from the read that happened to return it.
  private long lastTotalSinceNanos;
  // Earlier totals within SUSTAINED_SPAN_NANOS, each with the earliest it can have been published
  // (as lastTotalSinceNanos), oldest first and at least ANCHOR_SPACING_NANOS apart: the power bound
  // holds from each of them too, not only from the last total. Cleared when a total is refused.
  private final ArrayDeque<Anchor> anchors = new ArrayDeque<>();
  private long lastChangeNanos;
  // The earliest the latest change of the mark can have happened: the start of the last read that
  // still saw the mark before it (Long.MIN_VALUE before any change was seen). The stall rule takes
  // the latest side of a change (it must not demote a counter that did move); the grading at a
  // close takes this side, the one that cannot flatter the counter (§3.3).
  private long latestChangeEarliestNanos = Long.MIN_VALUE;
  // Whether a close must find the counter proven moving within the stall bound: set by a meter
  // that reads its counters while windows are open (its watch), without which no window long
  // enough to be a reading could pass. Not guarded: set once, never cleared, so setting it waits
  // for no books (a read that hangs would otherwise hold the meter's start).
  private volatile boolean watched;
  // The update period: the probe's figure, widened by reads that prove the counter now refreshes
  // more slowly (heldLongerNanos). The stall rule keeps to the probe's own figure, so a counter
  // whose refreshes keep slowing is demoted and re-probed once it holds a value five of them.
  private long updatePeriodNanos;
  private long probedPeriodNanos;
  // How long the reads proved the current mark held (from the end of the read that first saw it to
  // the start of the last that still saw it), and the same for the mark before it.
  private long currentHeldNanos;
  private long previousHeldNanos;
  // When the read at the latest window's close began, and whether any window has closed: that
  // window's energy is not all in the counter until one update period after it (SPEC 40 §3).
  private long lastLeaveReadStartNanos;
  private boolean leftOnce;
  private long lastProbeNanos;
  private boolean probeWanted;
  // Not guarded: set under the books, cleared by the probe's thread without them.
  private volatile boolean probeScheduled;
  // Demotions in the current run (each less than reprobeEveryNanos after the one before), the time
  // of the last, and when the re-probe it asked for may start.
  private int demotionsInARow;
  private long lastDemotionNanos;
  private long reprobeNotBeforeNanos;
  private boolean released;
  // Serves' and timed reads since the probe that last proved the counter live that threw an Error,
  // and what the last of them said once they set the counter aside (ERRORS_BEFORE_SET_ASIDE); a
  // live verdict starts the count over.
  private int errorsSinceLive;
  private String setAsideDetail = "";
  // Not guarded. Run as a disturbance begins, holding the books; a no-op but in tests
  // (beforeDisturbance(Runnable)).
  private volatile Runnable beforeDisturbance = () -> {};

  /**
   * A WARN said this counter is not live (a probe refused it, or it was demoted) and no line has
   * said it is live again since: its next live verdict is logged at INFO, so the operator hears of
   * the recovery. Other live verdicts (the first probe, each periodic re-probe) are at DEBUG, since
   * discovery's one INFO line already names the live domains.
   */
  private boolean warnedNotLive;

  /**
   * A ledger re-probed as often as {@link DiscoveryOptions#defaults()} says; for tests of one
   * ledger.
   */
  DomainLedger(EnergyChannel channel, LivenessPolicy policy, ProbeClock clock) {
    this(channel, policy, clock, DiscoveryOptions.defaults().reprobeEvery().toNanos());
  }

  /**
   * @param reprobeEveryNanos the periodic re-probe interval, also the longest a re-probe after a
   *     demotion waits ({@link #FIRST_REPROBE_BACKOFF_NANOS})
   */
  DomainLedger(
      EnergyChannel channel, LivenessPolicy policy, ProbeClock clock, long reprobeEveryNanos) {
    if (reprobeEveryNanos <= 0) {
      throw new IllegalArgumentException(
          "reprobeEveryNanos must be positive: " + reprobeEveryNanos);
    }
    this.channel = Objects.requireNonNull(channel, "channel");
    this.hardware = Objects.requireNonNull(channel.hardware(), "hardware");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.reprobeEveryNanos = reprobeEveryNanos;
    this.lastProbeNanos = clock.nanoTime();
    this.reprobeNotBeforeNanos = lastProbeNanos;
    this.maxReadGapSeenNanos = channel.maxReadGapNanos();
  }

  /** Waits for the books at most {@code nanos} from now on (tests: a bound shorter than 1 s). */
  void booksWait(long nanos) {
    if (nanos <= 0) {
      throw new IllegalArgumentException("nanos must be positive: " + nanos);
    }
    booksWaitNanos = nanos;
  }

  /**
   * Takes the books for {@code doing} (what a wait running out names as their holder), waiting at
   * most {@link #booksWaitNanos} for a holder (none while an earlier wait's running out is not yet
   * settled); returns whether they were taken, then settled ({@link #settleMissed}). Uncontended,
   * one compare-and-set. An interrupt does not cut the wait short: the caller's figure would be
   * graded down for it; it is kept for the caller. Given back by {@link #giveBackBooks}.
   */
  private boolean takeBooks(String doing) {
    if (books.tryLock()) {
      held(doing);
      return true;
    }
    if (waitRanOut) {
      return false;
    }
    long deadline = System.nanoTime() + booksWaitNanos;
    boolean interrupted = false;
    boolean taken = false;
    try {
      while (!taken) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          taken = books.tryLock(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (!taken) {
      busyFacts = busyFacts();
      waitRanOut = true;
      afterWaitRanOut.run();
      return false;
    }
    held(doing);
    return true;
  }

  /** The books were just taken for {@code doing}: noted, then settled. */
  private void held(String doing) {
    // The start first: a waiter reads holderDoing before holderSinceNanos, so one that sees this
    // holder sees its start too, never the last holder's.
    holderSinceNanos = System.nanoTime();
    holderDoing = doing;
    settleHeld();
  }

  /** Gives the books back, clearing what {@link #held} noted of their holder. */
  private void giveBackBooks() {
    holderDoing = null;
    books.unlock();
  }

  /**
   * What is known when a wait for the books runs out: how long they were busy, and who held them
   * doing what, in a call into the channel (a read of the counter, or its release) or not. A wait
   * also runs out under plain contention or a pause of the whole process (a long garbage
   * collection), with no call held at all; the words blame a call only when one was under way.
   */
  private String busyFacts() {
    String doing = holderDoing;
    String inChannel = holderInChannel;
    long heldMs = (System.nanoTime() - holderSinceNanos) / 1_000_000;
    long waitMs = booksWaitNanos / 1_000_000;
    if (doing == null) {
      return "the books were busy for over "
          + waitMs
          + " ms, their holder gone as the wait ran out (contention, or a pause of the process)";
    }
    if (inChannel != null) {
      // A release is always the meter's close's: run by the settle of whoever took the books after
      // the close left it to them (a serve, the timed read), it is named as the close's, with who
      // ran it, not as that taker's own call into the channel.
      String whose =
          RELEASING.equals(inChannel) && !CLOSING.equals(doing)
              ? CLOSING + ", left to the settle of " + doing
              : doing;
      return inChannel
          + " ("
          + whose
          + ") held the books for "
          + heldMs
          + " ms, past the "
          + waitMs
          + " ms wait";
    }
    return "the books were busy for over "
        + waitMs
        + " ms, held "
        + heldMs
        + " ms by "
        + doing
        + ", not in a read of the counter (contention, or a pause of the process)";
  }

  /**
   * Settles what waits that ran out left, if any; run whenever the books are taken, and gives them
   * back if it throws (the caller's finally does so only once they are held).
   */
  private void settleHeld() {
    if (waitRanOut) {
      try {
        settleMissed();
      } catch (RuntimeException | Error e) {
        giveBackBooks();
        throw e;
      }
    }
  }

  /**
   * A wait for the books ran out: they were held longer than {@link #booksWaitNanos} (a read that
   * hung, or contention, or a pause of the process, {@link #busyFacts}). The counter is demoted
   * (every window open across the hold loses its claim to a reading, and none opened before its
   * re-probe has one), the windows that closed unbooked leave the books, with the tail rule running
   * from now, and the disturbances that ended meanwhile are counted out. The serves that gave up
   * were graded the estimator; windows that opened unbooked are in {@link OpenWindows}, so every
   * window open beside them is overlapped.
   */
  private void settleMissed() {
    settleMissed("");
  }

  /**
   * {@link #settleMissed()}, {@code readEnd} (what the read that held the books met as it ended,
   * empty if it returned a total) added to what the settle says of the counter.
   */
  private void settleMissed(String readEnd) {
    waitRanOut = false;
    long nowNanos = clock.nanoTime();
    boolean leftAny = false;
    Share s = leftUnbooked.poll();
    while (s != null) {
      open.remove(s);
      leftAny = true;
      s = leftUnbooked.poll();
    }
    if (leftAny) {
      lastLeaveReadStartNanos = leftOnce ? Math.max(lastLeaveReadStartNanos, nowNanos) : nowNanos;
      leftOnce = true;
    }
    disturbances += disturbancesUnbooked.getAndSet(0);
    epoch++;
    if (state == CounterState.LIVE && !released) {
      String facts = busyFacts + readEnd + "; figures on its domain meanwhile were the estimator's";
      if (releaseUnbooked) {
        notLiveAtClose(facts);
      } else {
        demote(CounterIssue.READ_FAILED, facts);
      }
    }
    if (probeEndUnbooked) {
      probeEndUnbooked = false;
      endProbeUnproven(nowNanos, "its probe could not record a verdict: " + busyFacts);
    }
    if (releaseUnbooked) {
      releaseHeld();
    }
  }

  EnergyDomain domain() {
    return channel.domain();
  }

  /** The hardware counter this ledger reads ({@link EnergyChannel#hardware()}). */
  Object hardware() {
    return hardware;
  }

  @Override
  public String name() {
    return channel.name();
  }

  @Override
  public LivenessPolicy policy() {
    return policy;
  }

  /**
   * The longest this counter may go unread without risking a missed wrap; under the books, since a
   * read may shorten it (a zone seen drawing more than it was read for). While a read holds them
   * past the wait, the figure as they last left it.
   */
  long maxReadGapNanos() {
    if (!takeBooks("the read-gap check")) {
      return maxReadGapSeenNanos;
    }
    try {
      long gap = channel.maxReadGapNanos();
      maxReadGapSeenNanos = gap;
      return gap;
    } finally {
      giveBackBooks();
    }
  }

  /** Whether the counter is live; not while a read holds the books past the wait. */
  boolean isLive() {
    return fromBooks("a liveness check", () -> state == CounterState.LIVE ? 1 : 0, 0) == 1;
  }

  /** What {@code held} reads from the books, or {@code otherwise} if they cannot be taken. */
  private long fromBooks(String doing, LongSupplier held, long otherwise) {
    if (!takeBooks(doing)) {
      return otherwise;
    }
    try {
      return held.getAsLong();
    } finally {
      giveBackBooks();
    }
  }

  /**
   * How often the meter's watch should read this counter now: every {@link #WATCH_PERIODS} probed
   * update periods while it is live and a window is open on it (more often once reads proved it
   * refreshing more slowly than its probe saw), else 0 (no reads at all).
   */
  long watchEveryNanos() {
    return fromBooks("the watch's schedule", this::watchEveryHeld, 0);
  }

  private long watchEveryHeld() {
    if (state != CounterState.LIVE || open.isEmpty() || probedPeriodNanos <= 0) {
      return 0;
    }
    long every = WATCH_PERIODS * probedPeriodNanos;
    if (updatePeriodNanos > probedPeriodNanos) {
      // A close proves the counter moved only to within one refresh plus the read gap on either
      // side of the change; a counter refreshing more slowly than its probe saw leaves less of the
      // stall bound for the gap, and read every two probed periods it failed the proof at some
      // phases while changing well within the bound (4.5 times slower: 6 windows of 65).
      long left = STALL_PERIODS * probedPeriodNanos - updatePeriodNanos;
      every = Math.min(every, Math.max(probedPeriodNanos / MAX_WATCH_SPEEDUP, left / 3));
    }
    return Math.max(MIN_WATCH_NANOS, every);
  }

  /**
   * Holds every later close to the stall bound: a window is graded from the counter only if a read
   * proved it moving within {@link #STALL_PERIODS} probed periods before the close's read. Called
   * by the meter whose watch reads this counter while windows are open on it.
   */
  void watched() {
    watched = true;
  }

  /**
   * The update period the last probe learnt; 0 while the counter is not live, or a read holds the
   * books past the wait.
   */
  long updatePeriodNanos() {
    return fromBooks(
        "an update-period check", () -> state == CounterState.LIVE ? updatePeriodNanos : 0, 0);
  }

  /** The counter's status; not live while a read holds the books past the wait. */
  CounterStatus status() {
    if (!takeBooks("a status report")) {
      return CounterStatus.notLive(
          channel.name(),
          channel.domain(),
          CounterIssue.READ_FAILED,
          busyFacts + "; figures on its domain are the estimator's until they are free");
    }
    try {
      String facts = channel.statusNote().map(n -> detail + "; " + n).orElse(detail);
      return state == CounterState.LIVE
          ? CounterStatus.live(channel.name(), channel.domain(), facts)
          : CounterStatus.notLive(
              channel.name(),
              channel.domain(),
              Objects.requireNonNull(issue, "a counter that is not live has an issue"),
              facts);
    } finally {
      giveBackBooks();
    }
  }

  /**
   * Registers a window, live counter or not: its work lands on the domain either way. The share is
   * trusted at open only if the counter is live, no probe is disturbing it, and it was read.
   */
  Share enter(long nowNanos) {
    if (!takeBooks("a window's open")) {
      // A read holds the books: the window is counted on the counter, so every window beside it
      // is overlapped, and is no reading itself. The settle demotes the counter, so windows open
      // here now, which the books cannot mark, lose their claim to a reading too.
      Share share =
          new Share(
              OpenWindows.opened(hardware, clock, owner, nowNanos),
              0,
              0,
              nowNanos,
              false,
              Long.MAX_VALUE,
              false);
      share.overlapped = true;
      waitRanOut = true;
      return share;
    }
    try {
      return enterHeld(nowNanos);
    } finally {
      giveBackBooks();
    }
  }

  private Share enterHeld(long nowNanos) {
    // Counted before the read, so another meter reading the counter meanwhile splits its segment
    // as if this window were in it, which gives its windows less, never more (a leave is counted
    // out only after its read and the other meters' notices, CounterMeter). This ledger's own read
    // leaves it out: the segment it ends is before this window. Counted out again whatever is
    // thrown before the share is in the books (an OutOfMemoryError making it, a logger failing):
    // no window comes back to close, and the count left up would overlap every later window on
    // the counter, in every meter, for the life of the process.
    expireStale(nowNanos);
    OpenWindows.Counted counted = OpenWindows.opened(hardware, clock, owner, nowNanos);
    boolean registered = false;
    try {
      Share share = enterCounted(nowNanos, counted);
      registered = true;
      return share;
    } finally {
      if (!registered) {
        OpenWindows.closed(counted);
      }
    }
  }

  private Share enterCounted(long nowNanos, OpenWindows.Counted counted) {
    boolean readOk = true;
    long total = lastTotal;
    entering = true;
    enteringWindow = counted;
    enteringExpired = false;
    try {
      total = segment(nowNanos, false);
    } catch (CounterException e) {
      readOk = false;
      failed(e);
    } finally {
      entering = false;
      enteringWindow = null;
    }
    // Another window open now, or one that closed less than an update period before this read
    // began: the counter has not yet published all of the closed one's energy (it lags by up to a
    // period), so the rest of it lands in this window, which then holds two serves' energy.
    long openReadStartNanos = readOk ? lastReadStartNanos : nowNanos;
    long sinceLastLeaveNanos =
        leftOnce ? openReadStartNanos - lastLeaveReadStartNanos : Long.MAX_VALUE;
    boolean overlapped =
        !open.isEmpty()
            || counted.openOnCounter() > 1
            || OpenWindows.on(hardware) > 1
            || sinceLastLeaveNanos < updatePeriodNanos;
    for (Share s : open) {
      s.overlapped = true;
    }
    Share share =
        new Share(
            counted,
            epoch,
            total,
            readOk ? lastReadEndNanos : nowNanos,
            readOk && state == CounterState.LIVE && disturbances == 0,
            sinceLastLeaveNanos,
            true);
    share.overlapped = overlapped;
    if (enteringExpired) {
      // Taken as gone by its own read, as a window an hour open is: out of the books, its figure
      // the estimator's.
      share.stale = true;
      LOG.warn(
          "a window opening on energy counter {} ({}) was an hour old by the time its read began: it"
              + " is taken as gone, and its figure is the estimator's",
          channel.name(),
          channel.domain());
      return share;
    }
    open.add(share);
    return share;
  }

  /**
   * A window of another meter of the process opened on this counter (the same hardware): every
   * window open here now shares it; one opened here later finds it in {@link OpenWindows}. Reads
   * the counter first, so the energy before it is split among the windows then open (the new one
   * already counted, which gives them less, never more).
   */
  void foreignEntered(long nowNanos) {
    if (!takeBooks("another meter's window opening")) {
      waitRanOut = true; // again, should a settle have cleared it since the wait gave up
      return; // the settle demotes the counter: no window open here now is a reading
    }
    try {
      readForForeign(nowNanos);
    } finally {
      try {
        for (Share s : open) {
          s.overlapped = true;
        }
      } finally {
        giveBackBooks();
      }
    }
  }

  /**
   * A window of another meter of the process left this counter: the energy up to this read is split
   * with it still counted, and a window opened here within one update period after this read began
   * holds the end of that serve (the tail rule, across meters as within one).
   */
  void foreignLeft(long nowNanos) {
    if (!takeBooks("another meter's window closing")) {
      waitRanOut = true; // again, should a settle have cleared it since the wait gave up
      return; // the settle demotes the counter, and runs the tail rule from then
    }
    try {
      leftHeld(nowNanos);
    } finally {
      giveBackBooks();
    }
  }

  private void leftHeld(long nowNanos) {
    long readStart = nowNanos;
    try {
      readStart = readForForeign(nowNanos);
    } finally {
      lastLeaveReadStartNanos = Math.max(readStart, leftOnce ? lastLeaveReadStartNanos : readStart);
      leftOnce = true;
    }
  }

  /**
   * Reads the counter at another meter's event on it, and returns when that read began. Any
   * failure, an Error too, is this counter's failed read: the read was to end the segment at that
   * event, and without it the next read would split the energy before the event among the windows
   * open after it (a window that left took its share in its own meter's books, and the one still
   * open here would take it again), so the windows open here are no reading. An Error is not thrown
   * into the other meter's serve, whose counters are not at fault, and which must still tell every
   * other meter of its event.
   *
   * <p>A {@link VirtualMachineError} other than a {@link StackOverflowError} (the heap gone, the
   * JVM broken) is the process failing, not this counter: it passes as it is, to the serve whose
   * event this is, once the windows open here have lost their claim to a reading (a new epoch); the
   * counter is not demoted, blamed or re-probed for it. A stack overflow is unwound by the time it
   * is caught, and is this counter's failed read as any other Error.
   */
  private long readForForeign(long nowNanos) {
    if (released) {
      return nowNanos;
    }
    try {
      segment(nowNanos, false);
      return lastReadStartNanos;
    } catch (CounterException e) {
      failed(e);
    } catch (RuntimeException | Error e) {
      if (JvmFailure.isFailing(e)) {
        epoch++;
        JvmFailure.passIfFailing(e);
      }
      warnOf("reading energy counter {} at another meter's window threw", e);
      failed(
          new CounterException(
              CounterIssue.READ_FAILED,
              "reading "
                  + channel.name()
                  + " at another meter's window threw "
                  + ThrowableWords.describe(e),
              e));
    }
    return nowNanos;
  }

  /**
   * {@code share}'s window is gone from the counter, in every meter's count; once only. Takes no
   * books: {@link OpenWindows} has its own lock.
   */
  void countedOut(Share share) {
    countOut(share);
  }

  private static boolean countOut(Share share) {
    return OpenWindows.closed(share.counted);
  }

  /**
   * Takes every window open longer than {@link #STALE_WINDOW_NANOS} out of the books: this ledger's
   * own, and those of every other meter on the counter, a closed one's too ({@link
   * OpenWindows#expireStale}). An own window another meter's read counted out already leaves these
   * books here, without a second line. Costs the same however many windows are open, save for those
   * taken out.
   */
  private void expireStale(long nowNanos) {
    if (expiryOwed) {
      sweepCountedOut();
    }
    // Owed from here until every window counted out is out of these books: what follows allocates
    // (the lists, the sets, the lines), and a failure there (an OutOfMemoryError) left a window
    // counted out of the process's count, which never returns it again, but still in open, not
    // stale: it took a share of every later segment and overlapped every later window here.
    expiryOwed = true;
    List<OpenWindows.Counted> elsewhere = OpenWindows.countedOutElsewhere(owner);
    if (!elsewhere.isEmpty()) {
      takeOut(elsewhere);
      // The window an enter is reading for, counted out by another meter's read after it was
      // counted in and before this one: not yet in open, it would be booked and stay there.
      if (enteringWindow != null && elsewhere.contains(enteringWindow)) {
        enteringExpired = true;
      }
    }
    List<OpenWindows.Expired> expired = OpenWindows.expireStale(hardware, clock, owner, nowNanos);
    if (expired.isEmpty()) {
      expiryOwed = false;
      return;
    }
    afterCountOut.run();
    List<OpenWindows.Counted> own = new ArrayList<>();
    for (OpenWindows.Expired e : expired) {
      if (OpenWindows.isOf(e.window(), owner)) {
        own.add(e.window());
      }
      if (e.window() == enteringWindow) {
        enteringExpired = true;
      }
    }
    Set<OpenWindows.Counted> taken = takeOut(own);
    expiryOwed = false;
    for (OpenWindows.Expired e : expired) {
      if (!OpenWindows.isOf(e.window(), owner)) {
        LOG.warn(
            "a window of another meter (closed since, or yet to read the counter) open on energy"
                + " counter {} ({}) for {} min is taken as gone: it no longer overlaps later"
                + " windows",
            channel.name(),
            channel.domain(),
            e.ageNanos() / 60_000_000_000L);
      } else if (taken.contains(e.window())) {
        LOG.warn(
            "a window open on energy counter {} ({}) for {} min is taken as gone (its handle was"
                + " lost or its engine never returned): it no longer overlaps later windows, and"
                + " its own figure is the estimator's",
            channel.name(),
            channel.domain(),
            e.ageNanos() / 60_000_000_000L);
      }
    }
  }

  /**
   * Takes every share no longer in the process's count out of the books, marked stale, and marks
   * the window an enter is reading for if it is one: after an expiry cut short ({@link
   * #expiryOwed}), the windows it counted out are known only by that. Allocates nothing beyond the
   * iterator, and stays owed if it fails. Looks at every open window, so only when owed.
   */
  private void sweepCountedOut() {
    int taken = 0;
    for (Iterator<Share> it = open.iterator(); it.hasNext(); ) {
      Share s = it.next();
      if (!OpenWindows.isCounted(s.counted)) {
        it.remove();
        s.stale = true;
        taken++;
      }
    }
    if (enteringWindow != null && !OpenWindows.isCounted(enteringWindow)) {
      enteringExpired = true;
    }
    expiryOwed = false;
    LOG.warn(
        "an expiry of stale windows on energy counter {} ({}) was cut short; {} window(s) it had"
            + " taken as gone are now out of the books, their figures the estimator's",
        channel.name(),
        channel.domain(),
        taken);
  }

  /**
   * Runs {@code hook} each time a wait for the books has run out, before its caller leaves anything
   * for the settle; for tests of the holder returning in that gap.
   */
  void afterWaitRanOut(Runnable hook) {
    afterWaitRanOut = Objects.requireNonNull(hook, "hook");
  }

  /** Whether a thread is waiting for the books (for tests that act during such a wait). */
  boolean booksAwaited() {
    return books.hasQueuedThreads();
  }

  /**
   * Runs {@code hook} each time a read's expiry has counted stale windows out, before they leave
   * these books; for tests of a failure there (an allocation), which no channel can cause.
   */
  void afterCountOut(Runnable hook) {
    afterCountOut = Objects.requireNonNull(hook, "hook");
  }

  /**
   * Takes the shares of {@code windows} (counted out already) out of the books, marked stale;
   * returns those that were still open here (a window left, but not yet counted out, is not).
   */
  private Set<OpenWindows.Counted> takeOut(List<OpenWindows.Counted> windows) {
    Set<OpenWindows.Counted> gone = Collections.newSetFromMap(new IdentityHashMap<>());
    if (windows.isEmpty()) {
      return gone;
    }
    gone.addAll(windows);
    Set<OpenWindows.Counted> taken = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Iterator<Share> it = open.iterator(); it.hasNext(); ) {
      Share s = it.next();
      if (gone.contains(s.counted)) {
        it.remove();
        s.stale = true;
        taken.add(s.counted);
      }
    }
    return taken;
  }

  /** Removes a window and returns what it saw. */
  Exit leave(Share share, long nowNanos) {
    if (share.left) {
      throw new IllegalStateException("share already left the ledger");
    }
    share.left = true;
    if (!share.booked) {
      // Like another meter's window: its leave ends a segment, and its tail lands in the next.
      if (takeBooks("a window's close")) {
        try {
          leftHeld(nowNanos);
        } finally {
          giveBackBooks();
        }
      } else {
        waitRanOut = true; // the settle runs the tail rule from then
      }
      return new Exit(false, 0, 0, true);
    }
    if (!takeBooks("a window's close")) {
      // A read holds the books: the share leaves them at the settle, which also demotes the
      // counter and runs the tail rule from then.
      leftUnbooked.add(share);
      waitRanOut = true;
      return new Exit(false, 0, 0, true);
    }
    try {
      return leaveHeld(share, nowNanos);
    } finally {
      giveBackBooks();
    }
  }

  private Exit leaveHeld(Share share, long nowNanos) {
    if (share.stale) {
      // Out of the books already: no event here, and no figure from the counter.
      return new Exit(false, 0, share.apportionedUj, true);
    }
    long total;
    boolean readOk = true;
    try {
      total = segment(nowNanos, false);
    } catch (CounterException e) {
      readOk = false;
      total = lastTotal;
      failed(e);
    } finally {
      // Whatever the read did: a share left here would overlap every later window on the domain.
      open.remove(share);
    }
    lastLeaveReadStartNanos = readOk ? lastReadStartNanos : nowNanos;
    leftOnce = true;
    if (share.stale) {
      // Taken out of the books by this very read (an hour old by now, or counted out by another
      // meter's read since this ledger last read): its figure is the estimator's, as above.
      return new Exit(false, 0, share.apportionedUj, true);
    }
    // Measured between the reads, not the caller's times: a read at the open that was slow (a
    // driver call that blocked, a wait for the books) leaves the counter less of the window to
    // resolve than the caller's clock says, down to a single refresh, or none.
    long readSpanNanos = (readOk ? lastReadStartNanos : nowNanos) - share.openReadEndNanos;
    boolean longEnough =
        updatePeriodNanos > 0 && readSpanNanos >= MIN_WINDOW_PERIODS * updatePeriodNanos;
    boolean trusted =
        share.trustedAtOpen
            && readOk
            && state == CounterState.LIVE
            && disturbances == 0
            && epoch == share.epoch
            && longEnough
            && (!watched || movedWithinStallBound());
    boolean overlapped = share.overlapped || share.sinceLastLeaveNanos < updatePeriodNanos;
    return new Exit(trusted, total - share.totalAtOpen, share.apportionedUj, overlapped);
  }

  /**
   * Whether the reads prove the counter changed within {@link #STALL_PERIODS} probed periods before
   * the end of the last read (the close's): the stall rule catches a frozen counter only at a read,
   * so a counter that froze inside a window with no read after it would otherwise pass with the
   * energy drawn since it froze missing from the close's value. Measured from the earliest the
   * change can have happened to the latest the close's value can have been taken.
   */
  private boolean movedWithinStallBound() {
    return latestChangeEarliestNanos != Long.MIN_VALUE
        && lastReadEndNanos - latestChangeEarliestNanos < STALL_PERIODS * probedPeriodNanos;
  }

  /** Reads the counter between events, so a long quiet spell cannot hide a wrap. */
  void poll() {
    if (!takeBooks("the meter's timed read")) {
      return;
    }
    try {
      segment(clock.nanoTime(), false);
    } catch (CounterException e) {
      failed(e);
    } finally {
      giveBackBooks();
    }
  }

  /**
   * Reads the counter for a probe, keeping the segment books straight. Waits for the books as a
   * serve does: when the wait runs out the read fails (the probe judges the counter not live, and
   * proves nothing of it), rather than hold the probe, and with it every window of the process
   * disturbed, for as long as another read hangs. A probe's own read that hangs still holds it.
   */
  @Override
  public long readLivenessMark() throws CounterException {
    if (!takeBooks("a probe's read")) {
      probeReadMissed = true;
      waitRanOut = true; // again, should a settle have cleared it since the wait gave up
      throw new CounterException(
          CounterIssue.READ_FAILED,
          "the probe could not read " + channel.name() + ": " + busyFacts);
    }
    try {
      segment(clock.nanoTime(), true);
      return lastMark;
    } finally {
      giveBackBooks();
    }
  }

  /**
   * Marks a probe of this counter as started: it is not live until the probe ends. Returns false,
   * marking nothing, when a read holds the books past the wait: the probe goes on without this
   * counter (its re-probe is asked for by the settle's demotion), rather than wait on it with every
   * window of the process disturbed.
   */
  boolean beginProbe() {
    if (!takeBooks("a probe's start")) {
      return false;
    }
    try {
      beginProbeHeld();
      return true;
    } finally {
      giveBackBooks();
    }
  }

  private void beginProbeHeld() {
    if (!released) {
      // A query of the board (NVML's power limit) that can hang as a read can: said as one.
      holderInChannel = READING;
      try {
        told(LOG::debug, "energy counter {} could not recheck its set-up", channel::recheckAtProbe);
      } finally {
        holderInChannel = null;
      }
    }
    tellProbing(true);
    probeReadMissed = false;
    state = CounterState.NOT_LIVE;
    issue = CounterIssue.PROBING;
    detail = "re-probing";
    epoch++;
    probeWanted = false;
  }

  /**
   * Records a probe's verdict. When the wait for the books runs out the verdict is dropped, and the
   * settle ends the probe with the counter unproven ({@link #endProbeUnproven}): a probe that could
   * not finish proves nothing live, and waiting would hold its thread, with every window of the
   * process disturbed, for as long as a read hangs.
   */
  void endProbe(LivenessVerdict verdict, long nowNanos) {
    endProbe(verdict, nowNanos, false);
  }

  /**
   * {@link #endProbe(LivenessVerdict, long)}, {@code meterClosed} saying whether the counter's
   * meter was closed while the probe ran (its release left to the probe's end): a counter then
   * found not live is said to be so at DEBUG, released and not re-probed, not at WARN with figures
   * falling back to the estimator, since a closed meter grades none.
   */
  void endProbe(LivenessVerdict verdict, long nowNanos, boolean meterClosed) {
    if (meterClosed) {
      this.meterClosed = true;
    }
    if (!takeBooks("a probe's end")) {
      probeEndUnbooked = true;
      waitRanOut = true; // after the flag: a settle that cleared it has not seen the flag
      return;
    }
    try {
      endProbeHeld(verdict, nowNanos);
    } finally {
      giveBackBooks();
    }
  }

  private void endProbeHeld(LivenessVerdict verdict, long nowNanos) {
    if (probeReadMissed && !verdict.isLive()) {
      // Its read could not take the books (another read held them past the wait): the verdict
      // says nothing of the counter, which is re-probed as soon as after a demotion.
      endProbeUnproven(nowNanos, verdict.detail());
      return;
    }
    probeEnded(nowNanos);
    detail = verdict.detail();
    if (verdict.isLive()) {
      state = CounterState.LIVE;
      issue = null;
      errorsSinceLive = 0;
      updatePeriodNanos = verdict.updatePeriodNanos();
      probedPeriodNanos = updatePeriodNanos;
      LOG.atLevel(warnedNotLive ? Level.INFO : Level.DEBUG)
          .log("energy counter {} ({}) is live: {}", channel.name(), channel.domain(), detail);
      warnedNotLive = false;
    } else {
      state = CounterState.NOT_LIVE;
      issue = verdict.issue().orElseThrow();
      updatePeriodNanos = 0;
      probedPeriodNanos = 0;
      if (meterClosed || released || releaseUnbooked) {
        detail = detail + "; its meter was closed meanwhile";
        LOG.debug(
            "energy counter {} ({}) is not live ({}): {}, so it is released and not re-probed",
            channel.name(),
            channel.domain(),
            issue,
            detail);
        return;
      }
      warnedNotLive = true;
      LOG.warn(
          "energy counter {} ({}) is not live ({}): {}; figures on {} fall back to the estimator",
          channel.name(),
          channel.domain(),
          issue,
          detail,
          channel.domain());
    }
  }

  /** What every end of a probe does, whatever its verdict. */
  private void probeEnded(long nowNanos) {
    tellProbing(false);
    probeReadMissed = false;
    epoch++;
    lastProbeNanos = nowNanos;
    lastChangeNanos = nowNanos;
    currentHeldNanos = 0;
    previousHeldNanos = 0;
  }

  /**
   * Ends a probe whose end, or one of whose reads, could not take the books ({@link #endProbe},
   * {@link #readLivenessMark}): the counter is left not live, whatever the probe saw, and its
   * re-probe is asked for as at a demotion (with its backoff), since the probe's own verdict would
   * otherwise stand until the periodic re-probe, though it says nothing of the counter.
   */
  private void endProbeUnproven(long nowNanos, String facts) {
    probeEnded(nowNanos);
    updatePeriodNanos = 0;
    probedPeriodNanos = 0;
    if (released || releaseUnbooked || meterClosed) {
      state = CounterState.NOT_LIVE;
      issue = CounterIssue.READ_FAILED;
      detail = facts;
      return;
    }
    demote(CounterIssue.READ_FAILED, facts);
  }

  /**
   * Tells the channel a probe began or ended; a channel that throws cannot stop the probe's books.
   */
  private void tellProbing(boolean running) {
    told(
        LOG::debug,
        "energy counter {} could not be told of its probe",
        () -> channel.probing(running));
  }

  /**
   * A probe (of this counter or any other) has started: its load heats this domain, so no window
   * open across it, or opened during it, is a reading of the serve alone. Counted at the settle
   * when a read holds the books past the wait: the settle's demotion alone lasts only until the
   * counter's re-probe, which its own meter may run to the end while this probe still burns.
   */
  void beginDisturbance() {
    if (!takeBooks("a probe's disturbance beginning")) {
      disturbancesUnbooked.incrementAndGet();
      waitRanOut = true; // again, should a settle have cleared it since the wait gave up
      return;
    }
    try {
      beforeDisturbance.run();
      disturbances++;
      epoch++;
    } finally {
      giveBackBooks();
    }
  }

  /**
   * Runs {@code hook} as each later disturbance begins, before it is counted; for tests of a
   * failure there (a stack overflow entering the books), which no channel can cause.
   */
  void beforeDisturbance(Runnable hook) {
    beforeDisturbance = Objects.requireNonNull(hook, "hook");
  }

  /** A probe has ended; counted at the settle when a read holds the books past the wait. */
  void endDisturbance() {
    if (!takeBooks("a probe's disturbance ending")) {
      disturbancesUnbooked.decrementAndGet();
      waitRanOut = true;
      return;
    }
    try {
      disturbances--;
      epoch++;
    } finally {
      giveBackBooks();
    }
  }

  /**
   * Claims the right to schedule a probe when one is due (periodically, or after a demotion once
   * its backoff has passed); returns true at most once until {@link #probeFinished()}.
   */
  boolean claimProbe(long nowNanos) {
    if (probeScheduled || !takeBooks("a probe's claim")) {
      return false;
    }
    try {
      if (probeScheduled || released) {
        return false;
      }
      if ((probeWanted && nowNanos - reprobeNotBeforeNanos >= 0)
          || nowNanos - lastProbeNanos >= reprobeEveryNanos) {
        probeScheduled = true;
        return true;
      }
      return false;
    } finally {
      giveBackBooks();
    }
  }

  /** Clears the scheduled flag once the probe has run (or could not be run); takes no books. */
  void probeFinished() {
    probeScheduled = false;
  }

  /**
   * Releases the channel; reads after this fail. Throws nothing but the JVM failing ({@link
   * JvmFailure}) out of the channel's release: anything else it throws, an {@link Error} too, is
   * logged, as a release that failed leaves nothing a caller could do, and the meter's close must
   * still release every other counter. While a read holds the books past the wait, the release is
   * left to their settle (the channel is not thread-safe).
   */
  void release() {
    // Before the wait, not once it has run out: a read ending between the two (in the JVM failing)
    // saw the wait run out but no close, and demoted its counter with a WARN awaiting a re-probe
    // that a closed meter never runs. A settle that sees it while the close still waits releases
    // the channel then, as the close would.
    releaseUnbooked = true;
    if (!takeBooks(CLOSING)) {
      waitRanOut = true;
      // The holder may have returned, and settled, between this wait running out and the flag:
      // then no settle saw it, and a closed meter may never take the books again, which left the
      // channel unreleased for good. Free now, they are taken once more to settle (and release).
      if (books.tryLock()) {
        held(CLOSING);
        giveBackBooks();
      }
      return;
    }
    try {
      releaseHeld();
    } finally {
      giveBackBooks();
    }
  }

  private void releaseHeld() {
    if (released) {
      return;
    }
    released = true;
    holderInChannel = RELEASING;
    try {
      told(LOG::warn, "releasing energy counter {} failed", channel::release);
    } finally {
      holderInChannel = null;
    }
  }

  /**
   * A failed read demotes a live counter; one that is not live stays as its probe left it. A read
   * refused because the meter was closed (a window closing after its meter) is no fault of the
   * counter: no WARN tells the operator it fell back to the estimator until a re-probe that a
   * closed meter never runs.
   */
  private void failed(CounterException e) {
    if (state == CounterState.LIVE && !released) {
      if (releaseUnbooked) {
        // The meter's close is under way, waiting for these books (it says so before its wait):
        // it releases the counter next, and a closed meter runs no re-probe to promise.
        notLiveAtClose(String.valueOf(e.getMessage()));
        return;
      }
      demote(
          e.issue() == CounterIssue.COUNTER_RESET ? e.issue() : CounterIssue.READ_FAILED,
          String.valueOf(e.getMessage()));
    }
  }

  /**
   * The books were held past a wait across the meter's close, or a read failed while the close
   * waited for them: the counter is not live, and is released at this settle (or by the close),
   * never re-probed. Said at WARN (a call into the channel hung, or the process paused), but not as
   * a demotion awaiting a re-probe that a closed meter never runs.
   */
  private void notLiveAtClose(String facts) {
    state = CounterState.NOT_LIVE;
    issue = CounterIssue.READ_FAILED;
    detail = facts + "; its meter was closed meanwhile";
    LOG.warn(
        "energy counter {} ({}) is not live ({}): {}; its meter was closed meanwhile, so it is"
            + " released and not re-probed",
        channel.name(),
        channel.domain(),
        CounterIssue.READ_FAILED,
        facts);
  }

  private void demote(CounterIssue why, String facts) {
    long nowNanos = clock.nanoTime();
    epoch++;
    state = CounterState.NOT_LIVE;
    issue = why;
    probeWanted = true;
    warnedNotLive = true;
    boolean sameRun = demotionsInARow > 0 && nowNanos - lastDemotionNanos < reprobeEveryNanos;
    demotionsInARow = sameRun ? demotionsInARow + 1 : 1;
    lastDemotionNanos = nowNanos;
    long waitNanos = reprobeBackoffNanos(demotionsInARow);
    reprobeNotBeforeNanos = nowNanos + waitNanos;
    String when =
        waitNanos == 0
            ? "a re-probe"
            : "a re-probe in "
                + waitNanos / 1_000_000_000L
                + " s (demotion "
                + demotionsInARow
                + " in a row)";
    detail = waitNanos == 0 ? facts : facts + "; " + when;
    LOG.warn(
        "energy counter {} ({}) demoted ({}): {}; figures on {} fall back to the estimator until"
            + " {} proves it live",
        channel.name(),
        channel.domain(),
        why,
        facts,
        channel.domain(),
        when);
  }

  /**
   * How long the re-probe after the {@code n}-th demotion of a run waits: none after the first (a
   * counter that was demoted once is re-probed at once), then {@link #FIRST_REPROBE_BACKOFF_NANOS},
   * doubling with each further demotion, at most the periodic interval.
   */
  private long reprobeBackoffNanos(int n) {
    if (n <= 1) {
      return 0;
    }
    long wait = FIRST_REPROBE_BACKOFF_NANOS;
    for (int i = 2; i < n && wait < reprobeEveryNanos; i++) {
      wait *= 2;
    }
    return Math.min(wait, reprobeEveryNanos);
  }

  /**
   * Reads the channel. Anything unchecked it throws (an FFM call failing, an overflow in a native
   * total) is a failed read like any other: thrown on from here it would escape the meter in the
   * middle of an open or close, and leave a window registered on this domain for good.
   *
   * <p>An {@link Error} is thrown on, as a fault of the process rather than of the read, until the
   * counter has thrown {@link #ERRORS_BEFORE_SET_ASIDE} since a probe last proved it live: then it
   * is demoted and set aside (read again only by its re-probe, {@code forProbe}), the Error that
   * set it aside turned into a failed read unless it is the JVM failing ({@link JvmFailure}'s rule:
   * a stack overflow, or the fault of a read of a file the counter mapped that was cut short, is
   * the counter's own and a failed read). A counter whose reads keep throwing would otherwise stay
   * live and throw into the serves on its domain for the life of the process. A probe's read turns
   * any Error into a failed read of this counter alone.
   */
  private long readChannel(boolean forProbe) throws CounterException {
    if (!forProbe && errorsSinceLive >= ERRORS_BEFORE_SET_ASIDE) {
      throw new CounterException(CounterIssue.READ_FAILED, setAsideDetail);
    }
    holderInChannel = READING;
    try {
      return readTimed(forProbe);
    } finally {
      holderInChannel = null;
    }
  }

  /** {@link #readChannel} once the counter is not set aside, {@link #holderInChannel} set. */
  private long readTimed(boolean forProbe) throws CounterException {
    try {
      return channel.readTotalUj();
    } catch (RuntimeException e) {
      throw new CounterException(
          CounterIssue.READ_FAILED,
          "reading " + channel.name() + " threw " + ThrowableWords.describe(e),
          e);
    } catch (Error e) {
      if (forProbe) {
        // A probe is the counter's trial, and a fault met reading it is its verdict. Thrown on, it
        // would end the probe of every counter taken with it (all of them at the periodic
        // re-probe), leaving every other counter not live until the next probe.
        debugOf("the probe's read of energy counter {} threw", e);
        throw new CounterException(
            CounterIssue.READ_FAILED,
            "reading "
                + channel.name()
                + " threw "
                + ThrowableWords.describe(e)
                + "; this counter's probe failed, the others' went on",
            e);
      }
      errorsSinceLive =
          errorsSinceLive == Integer.MAX_VALUE ? errorsSinceLive : errorsSinceLive + 1;
      if (errorsSinceLive < ERRORS_BEFORE_SET_ASIDE) {
        throw e;
      }
      setAsideDetail =
          "reading "
              + channel.name()
              + " threw "
              + ThrowableWords.describe(e)
              + ", "
              + errorsSinceLive
              + " reads having thrown an Error since a probe proved it live; it is read again only"
              + " by its re-probe";
      // Thrown on to the serve that read it. Across the meter's close (a read that held the books
      // past a wait), the settle that follows says the counter is released
      // (settleCloseAfterFailedRead): demoted here, it was said to await a re-probe that a closed
      // meter never runs.
      if (JvmFailure.isFailing(e)) {
        if (!closedMeanwhile()) {
          failed(new CounterException(CounterIssue.READ_FAILED, setAsideDetail, e));
        }
        throw e;
      }
      throw new CounterException(CounterIssue.READ_FAILED, setAsideDetail, e);
    }
  }

  /**
   * A read that held the books past a wait, across the meter's close, failed: its settle is run
   * here, as after a read that returned, so the channel is released and the counter said to be so
   * ({@link #notLiveAtClose}). Left to the next taker of the books, which a closed meter may never
   * have, the channel stayed unreleased, and the caller's {@link #failed} demoted the counter with
   * a WARN awaiting a re-probe that a closed meter never runs. Anything the settle throws is added
   * to {@code e}, which the caller throws on.
   */
  private void settleCloseAfterFailedRead(Throwable e) {
    if (!closedMeanwhile()) {
      return;
    }
    try {
      settleMissed("; the read then " + failureWords(e));
    } catch (RuntimeException | Error s) {
      e.addSuppressed(s);
    }
  }

  /** Whether the meter was closed while the books were held past a wait, its release unsettled. */
  private boolean closedMeanwhile() {
    return waitRanOut && releaseUnbooked;
  }

  /**
   * What a failed read met, in its own words: a refusal's reason, or what was thrown (the JVM's
   * words for the JVM failing), read so that words which themselves throw (a channel's own
   * throwable) cost the settle nothing; only the JVM failing while building them passes.
   */
  private static String failureWords(Throwable e) {
    Throwable said = e;
    if (e instanceof CounterException c) {
      if (!(c.getCause() instanceof Error cause)) {
        return "failed: " + c.getMessage();
      }
      // An Error that set the counter aside is quoted as itself: the refusal built from it speaks
      // of a re-probe, which a closed meter never runs.
      said = cause;
    }
    return "threw " + ThrowableWords.describe(said);
  }

  /**
   * Makes a call on the channel outside its reads that the books must outlive (a recheck at the
   * probe's start, the channel told of its probe or of a refused total, its release): whatever the
   * call throws, an {@link Error} included, is logged once through {@code log} ({@code message} has
   * one {@code {}}, the counter's name) and goes no further, since the probe's reads, not these
   * calls, judge the counter. Only the JVM failing passes ({@link JvmFailure}).
   */
  private void told(BiConsumer<String, Object[]> log, String message, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      logOf(log, message, e);
    }
  }

  /**
   * Logs {@code message} (one {@code {}}, the counter's name) at WARN with {@code e} and its trace,
   * as {@link ThrowableWords#log} does: where asking {@code e} for its words throws inside the
   * logging binding (a channel's throwable is the channel's code), with its class's name instead.
   */
  private void warnOf(String message, Throwable e) {
    logOf(LOG::warn, message, e);
  }

  /** Logs {@code message} at DEBUG as {@link #warnOf} does at WARN. */
  private void debugOf(String message, Throwable e) {
    logOf(LOG::debug, message, e);
  }

  /** {@link #warnOf} and {@link #debugOf}, {@code log} being the logger's call at their level. */
  private void logOf(BiConsumer<String, Object[]> log, String message, Throwable e) {
    String name = channel.name();
    ThrowableWords.log(
        e,
        traced -> log.accept(message, new Object[] {name, traced}),
        className -> log.accept(message + ": {}", new Object[] {name, className}));
  }

  /**
   * Refuses a total that ran backwards, or leapt further than the domain can draw since the last
   * read ({@link EnergyChannel#powerBound()}), or rose further than it can draw since any of the
   * kept earlier totals (a draw past the bound sustained over many reads, each within it alone), as
   * a reset: it is no energy of any window. The books count on from the new total, so the next read
   * is measured from it, not from the old one (from which the leap would be admitted once enough
   * time had passed).
   */
  private void refuseImplausible(long total, long mark, long nowNanos, long afterNanos)
      throws CounterException {
    // From when the previous total can have been published, not from the read that returned it: a
    // counter that had not refreshed for a while was late, not reset, and its next value brings the
    // energy of the whole time since.
    PowerBound bound = channel.powerBound();
    long fromTotal = lastTotal;
    long fromNanos = lastTotalSinceNanos;
    boolean plausible = withinBound(bound, lastTotal, lastTotalSinceNanos, total, afterNanos);
    while (!anchors.isEmpty()
        && afterNanos - anchors.getFirst().sinceNanos() > SUSTAINED_SPAN_NANOS) {
      anchors.removeFirst();
    }
    for (Anchor a : anchors) {
      if (!plausible) {
        break;
      }
      plausible = withinBound(bound, a.total(), a.sinceNanos(), total, afterNanos);
      fromTotal = a.total();
      fromNanos = a.sinceNanos();
    }
    if (plausible) {
      return;
    }
    told(LOG::debug, "energy counter {} could not be told its total was refused", channel::refused);
    // Refused from a kept earlier total, not the last one: judged before the books move on.
    boolean sustained = fromNanos != lastTotalSinceNanos || fromTotal != lastTotal;
    long was = lastTotal;
    lastTotal = total;
    lastMark = mark;
    lastTotalSinceNanos = lastReadNanos;
    lastReadNanos = Math.max(lastReadNanos, nowNanos);
    anchors.clear();
    anchors.add(new Anchor(total, lastTotalSinceNanos));
    throw new CounterException(
        CounterIssue.COUNTER_RESET,
        channel.name()
            + " total moved from "
            + fromTotal
            + " to "
            + total
            + " µJ in "
            + (afterNanos - fromNanos) / 1_000_000
            + " ms"
            + (sustained ? " (over several reads)" : "")
            + ": "
            + (total < was ? "backwards" : "more than " + bound.watts() + " W can draw")
            + ", so the counter was reset or misread; counting on from "
            + total);
  }

  /**
   * The clock reads earlier than the last read (a step back, which a monotonic clock should never
   * make): every time kept was in the future, so a gap, a stall or the tail of the last close would
   * be measured from it, hiding a spell unread long enough for a wrap and overlapping every window
   * for as long as the step. The times start over from {@code nowNanos}: no window open across the
   * step is a reading (a new epoch), no change of the counter is proven since, a close's tail runs
   * from here, a re-probe due by then is due now, and a window open across the step is aged from
   * here ({@link #STALE_WINDOW_NANOS}), never from a time still ahead.
   */
  private void restartTimes(long nowNanos) {
    LOG.warn(
        "the clock of energy counter {} stepped back {} ms; windows open across it are not readings",
        channel.name(),
        (lastReadNanos - nowNanos) / 1_000_000);
    epoch++;
    lastReadNanos = nowNanos;
    lastChangeNanos = Math.min(lastChangeNanos, nowNanos);
    latestChangeEarliestNanos = Long.MIN_VALUE;
    currentHeldNanos = 0;
    previousHeldNanos = 0;
    lastTotalSinceNanos = nowNanos;
    anchors.clear();
    lastLeaveReadStartNanos = Math.min(lastLeaveReadStartNanos, nowNanos);
    lastProbeNanos = Math.min(lastProbeNanos, nowNanos);
    lastDemotionNanos = Math.min(lastDemotionNanos, nowNanos);
    reprobeNotBeforeNanos = Math.min(reprobeNotBeforeNanos, nowNanos);
    // The open windows' ages are brought back by expireStale, which follows at this same time.
  }

  /**
   * Whether the rise from {@code from}, published no earlier than {@code fromNanos}, is drawable.
   */
  private static boolean withinBound(
      PowerBound bound, long from, long fromNanos, long total, long afterNanos) {
    long increment;
    try {
      increment = Math.subtractExact(total, from);
    } catch (ArithmeticException e) {
      increment = Long.MAX_VALUE;
    }
    return increment >= 0 && increment <= bound.mostDrawnUj(afterNanos - fromNanos);
  }

  /**
   * The mark just changed after the reads proved it held {@code heldNanos}. When it held longer
   * than the update period, and so did the mark before it, the counter refreshes more slowly than
   * its probe saw (a driver that lowered its rate, a board gone idle), and the period is widened to
   * the shorter of the two holds: the ten-period rule and the tail rule must span the refreshes the
   * counter makes now, not those of the probe, up to ten minutes old. One long hold alone is a
   * refresh or a few missed (a late counter, which the increment bound allows for), not a slower
   * rate. Both holds are lower bounds, from reads, so the widened period never exceeds the true one
   * by more than the probe's did; reads spaced wider than the refresh prove no hold at all.
   */
  private void heldLongerNanos(long heldNanos) {
    long slower = Math.min(heldNanos, previousHeldNanos);
    previousHeldNanos = heldNanos;
    currentHeldNanos = 0;
    if (state == CounterState.LIVE && slower > updatePeriodNanos) {
      LOG.debug(
          "energy counter {} refreshes more slowly than its probe saw: update period {} ms, was {}"
              + " ms",
          channel.name(),
          slower / 1_000_000,
          updatePeriodNanos / 1_000_000);
      updatePeriodNanos = slower;
    }
  }

  /**
   * Reads the counter, splits the energy since the last event among the open windows, and checks
   * that a live counter is still moving and was read often enough to see every wrap.
   */
  private long segment(long eventNanos, boolean forProbe) throws CounterException {
    if (released) {
      throw new CounterException(CounterIssue.READ_FAILED, channel.name() + " was released");
    }
    // Time the read itself, under the books, on both sides: the caller's clock reading may be
    // older than the value (it waited for the books), and the thread may be descheduled between
    // reading the clock and the counter. Each rule takes the side that cannot flatter the counter:
    // a new value counts as seen only from after the read (so a fresh value never looks still),
    // a stall is measured up to before it, and a read gap up to after it (so no wrap hides).
    long nowNanos = Math.max(eventNanos, clock.nanoTime());
    boolean clockWentBack = haveTotal && nowNanos < lastReadNanos;
    if (clockWentBack) {
      restartTimes(nowNanos);
    }
    expireStale(nowNanos);
    long gapBefore = channel.maxReadGapNanos();
    long total;
    try {
      total = readChannel(forProbe);
    } catch (CounterException | RuntimeException | Error e) {
      settleCloseAfterFailedRead(e);
      throw e;
    }
    if (waitRanOut) {
      // A wait for the books ran out during this read: it is the read that held them.
      settleMissed();
      if (released) {
        // The meter closed meanwhile and the settle released the channel: nothing more is asked
        // of it.
        throw new CounterException(CounterIssue.READ_FAILED, channel.name() + " was released");
      }
    }
    long mark = channel.livenessMark(total);
    long afterNanos = Math.max(nowNanos, clock.nanoTime());
    if (haveTotal) {
      // Judged before anything the read taught the channel is believed: a total refused here is no
      // draw, and the channel forgets it (a RAPL zone would otherwise read its interval for it).
      // Not across a step back of the clock: how long the increment took is unknown.
      if (!clockWentBack) {
        refuseImplausible(total, mark, nowNanos, afterNanos);
      }
      if (channel.maxReadGapNanos() < gapBefore) {
        // The counter drew more than it was read for: reads before this one were spaced for less,
        // so no window open across them is a reading (a wrap more may hide between two of them).
        epoch++;
        LOG.debug(
            "energy counter {} draws more than it was read for; reading it every {} ms from now",
            channel.name(),
            channel.maxReadGapNanos() / 2_000_000);
      }
      // Held to the bound the gap was read for, or the new one if shorter: a read that lengthens
      // the interval (the zone drew little) must not excuse a gap too long for the old one.
      if (afterNanos - lastReadNanos > Math.min(gapBefore, channel.maxReadGapNanos())) {
        // The counter may have wrapped more than once since the last read: the total is right
        // from here on, but no window that spans this gap can be read from it.
        epoch++;
        LOG.debug(
            "energy counter {} went {} ms unread; windows across the gap are not readings",
            channel.name(),
            (afterNanos - lastReadNanos) / 1_000_000);
      }
      if (!open.isEmpty()) {
        // Among every window open on the counter, other meters' too (each of those takes its share
        // in its own meter's books), so the shares of all of them add up to no more than the
        // energy.
        int sharing = Math.max(open.size(), OpenWindows.on(hardware) - (entering ? 1 : 0));
        double each = (double) (total - lastTotal) / sharing;
        for (Share s : open) {
          s.apportionedUj += each;
        }
      }
      if (mark != lastMark) {
        lastChangeNanos = Math.max(lastChangeNanos, afterNanos);
        latestChangeEarliestNanos = lastReadStartNanos;
        heldLongerNanos(currentHeldNanos);
      } else if (state == CounterState.LIVE
          && nowNanos - lastChangeNanos >= STALL_PERIODS * probedPeriodNanos) {
        demote(
            CounterIssue.STALLED,
            "did not advance for "
                + (nowNanos - lastChangeNanos) / 1_000_000
                + " ms, "
                + STALL_PERIODS
                + " update periods of "
                + String.format(java.util.Locale.ROOT, "%.1f", probedPeriodNanos / 1e6)
                + " ms");
      } else {
        currentHeldNanos = Math.max(currentHeldNanos, nowNanos - lastChangeNanos);
      }
    }
    if (!haveTotal) {
      lastTotalSinceNanos = nowNanos;
      anchors.add(new Anchor(total, lastTotalSinceNanos));
    } else if (total != lastTotal) {
      lastTotalSinceNanos = lastReadNanos;
      if (anchors.isEmpty()
          || lastTotalSinceNanos - anchors.getLast().sinceNanos() >= ANCHOR_SPACING_NANOS) {
        anchors.add(new Anchor(total, lastTotalSinceNanos));
      }
    }
    lastTotal = total;
    lastMark = mark;
    haveTotal = true;
    lastReadNanos = Math.max(lastReadNanos, nowNanos);
    lastReadStartNanos = nowNanos;
    lastReadEndNanos = afterNanos;
    maxReadGapSeenNanos = channel.maxReadGapNanos();
    return total;
  }
}
