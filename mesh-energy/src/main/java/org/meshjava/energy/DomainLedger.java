package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The book a meter keeps for one domain: its counter, its liveness, and the windows open on it.
 *
 * <p>Design note. Every window open and close on the domain is an <em>event</em>, and the
 * counter is read at each one. The energy between two consecutive events (a <em>segment</em>)
 * is split equally among the windows open during it, and a segment with two or more windows
 * marks all of them as overlapped. So a window alone on the domain receives exactly its counter
 * delta, which may be graded a hardware reading; a window that shared the domain at any moment
 * receives a model of its share, which may not (§3.3). Shares of the windows open in a segment
 * always sum to the segment's energy: nothing is lost or counted twice among our windows. Idle
 * and background power are inside every segment; they are not subtracted (see the package
 * documentation of the rule).
 *
 * <p>The liveness <em>epoch</em> changes whenever the counter's trust changes (a probe starts or
 * ends, the counter stalls or fails). A window is graded from the counter only if the epoch at
 * its close is the one at its open, so a window that straddles a probe (whose CPU burn lands on
 * the package) or a demotion never yields a counter figure.
 *
 * <p>Thread-safe: every method holds the ledger's monitor, which also serialises reads of the
 * channel (channels are not thread-safe).
 */
final class DomainLedger implements LivenessProbe.Target {
  private static final Logger LOG = LoggerFactory.getLogger(DomainLedger.class);

  /** One window's stake in this domain. Guarded by the ledger's monitor. */
  static final class Share {
    private final long epoch;
    private final long totalAtOpen;
    private final long openedNanos;
    private double apportionedUj;
    private boolean overlapped;
    private boolean left;

    private Share(long epoch, long totalAtOpen, long openedNanos) {
      this.epoch = epoch;
      this.totalAtOpen = totalAtOpen;
      this.openedNanos = openedNanos;
    }
  }

  /**
   * What one window learned from this domain at its close.
   *
   * @param trusted the counter was live, in the same epoch, from open to close
   * @param measuredUj the counter's delta over the window
   * @param apportionedUj this window's share by the segment rule
   * @param overlapped another window shared the domain at some moment
   * @param demoted this close found the counter stalled or failing and demoted it
   */
  record Exit(
      boolean trusted, long measuredUj, double apportionedUj, boolean overlapped, boolean demoted) {}

  private final EnergyChannel channel;
  private final List<Share> open = new ArrayList<>();
  private CounterState state = CounterState.NOT_LIVE;
  private CounterIssue issue = CounterIssue.PROBING;
  private String detail = "not yet probed";
  private long epoch;
  private long lastTotal;
  private boolean haveTotal;
  private long lastProbeNanos;
  private boolean probeWanted;
  private boolean probeScheduled;

  DomainLedger(EnergyChannel channel, long createdNanos) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.lastProbeNanos = createdNanos;
  }

  EnergyDomain domain() {
    return channel.domain();
  }

  @Override
  public String name() {
    return channel.name();
  }

  EnergyChannel channel() {
    return channel;
  }

  synchronized boolean isLive() {
    return state == CounterState.LIVE;
  }

  synchronized CounterStatus status() {
    return state == CounterState.LIVE
        ? CounterStatus.live(channel.name(), channel.domain(), detail)
        : CounterStatus.notLive(channel.name(), channel.domain(), issue, detail);
  }

  /**
   * Registers a window if the counter is live; returns empty if it is not (or the read failed,
   * which demotes it). A window is registered on every live domain it declares, even one it
   * cannot be graded on, because its work still lands on that domain and so overlaps others.
   */
  synchronized Optional<Share> enter(long nowNanos) {
    if (state != CounterState.LIVE) {
      return Optional.empty();
    }
    long total;
    try {
      total = segment();
    } catch (CounterException e) {
      demote(e.issue() == CounterIssue.COUNTER_RESET ? e.issue() : CounterIssue.READ_FAILED,
          e.getMessage());
      return Optional.empty();
    }
    Share share = new Share(epoch, total, nowNanos);
    open.add(share);
    return Optional.of(share);
  }

  /**
   * Removes a window and returns what it saw. A window that opened for {@code stallNanos} or
   * more on a live counter that did not move at all demotes the counter: a live counter updates
   * within a probe interval, so a long window with no advance means it stopped.
   */
  synchronized Exit leave(Share share, long nowNanos, long stallNanos) {
    if (share.left) {
      throw new IllegalStateException("share already left the ledger");
    }
    share.left = true;
    long total;
    boolean readOk = true;
    try {
      total = segment();
    } catch (CounterException e) {
      readOk = false;
      total = lastTotal;
      demote(e.issue() == CounterIssue.COUNTER_RESET ? e.issue() : CounterIssue.READ_FAILED,
          e.getMessage());
    }
    open.remove(share);
    long measured = total - share.totalAtOpen;
    boolean trusted = readOk && state == CounterState.LIVE && epoch == share.epoch;
    boolean demoted = !readOk;
    if (trusted && measured == 0 && nowNanos - share.openedNanos >= stallNanos) {
      demote(
          CounterIssue.STALLED,
          "did not advance over a window of " + (nowNanos - share.openedNanos) / 1_000_000
              + " ms");
      trusted = false;
      demoted = true;
    }
    return new Exit(trusted, measured, share.apportionedUj, share.overlapped, demoted);
  }

  /** Reads the counter for a probe, keeping the segment books straight. */
  @Override
  public synchronized long readTotalUj() throws CounterException {
    return segment();
  }

  /** Marks a probe as started: the counter is not live until it ends. */
  synchronized void beginProbe() {
    state = CounterState.NOT_LIVE;
    issue = CounterIssue.PROBING;
    detail = "re-probing";
    epoch++;
    probeWanted = false;
  }

  /** Records a probe's verdict. */
  synchronized void endProbe(LivenessVerdict verdict, long nowNanos) {
    epoch++;
    lastProbeNanos = nowNanos;
    CounterState was = state;
    if (verdict.isLive()) {
      state = CounterState.LIVE;
      issue = null;
      detail = verdict.detail();
      LOG.info("energy counter {} ({}) is live: {}", channel.name(), channel.domain(), detail);
    } else {
      state = CounterState.NOT_LIVE;
      issue = verdict.issue().orElseThrow();
      detail = verdict.detail();
      LOG.warn(
          "energy counter {} ({}) is not live ({}): {}; figures on {} fall back to the estimator",
          channel.name(), channel.domain(), issue, detail, channel.domain());
    }
    if (was != state) {
      LOG.debug("energy counter {} went from {} to {}", channel.name(), was, state);
    }
  }

  /**
   * Claims the right to schedule a probe when one is due (periodically, or after a demotion);
   * returns true at most once until {@link #probeFinished()}.
   */
  synchronized boolean claimProbe(long nowNanos, long reprobeEveryNanos) {
    if (probeScheduled) {
      return false;
    }
    if (probeWanted || nowNanos - lastProbeNanos >= reprobeEveryNanos) {
      probeScheduled = true;
      return true;
    }
    return false;
  }

  /** Clears the scheduled flag once the probe has run (or could not be run). */
  synchronized void probeFinished() {
    probeScheduled = false;
  }

  private void demote(CounterIssue why, String facts) {
    epoch++;
    state = CounterState.NOT_LIVE;
    issue = why;
    detail = facts;
    probeWanted = true;
    LOG.warn(
        "energy counter {} ({}) demoted ({}): {}; figures on {} fall back to the estimator until"
            + " a re-probe proves it live",
        channel.name(), channel.domain(), why, facts, channel.domain());
  }

  /** Reads the counter and splits the energy since the last event among the open windows. */
  private long segment() throws CounterException {
    long total = channel.readTotalUj();
    if (haveTotal && !open.isEmpty()) {
      double each = (double) (total - lastTotal) / open.size();
      boolean shared = open.size() > 1;
      for (Share s : open) {
        s.apportionedUj += each;
        s.overlapped |= shared;
      }
    }
    lastTotal = total;
    haveTotal = true;
    return total;
  }
}
