package org.meshjava.jcp;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Unsigned;

/**
 * The in-memory {@link SpendLedger}. One lock guards all state: a reservation touches every link of
 * a chain, and chains share links, so per-link locks would need an ordering discipline for no
 * measurable gain at the rate a steward serves.
 *
 * <p><b>Bounded memory.</b> A spent (leaf, nonce) pair is kept until the horizon (the latest time
 * of an admitted decision; refusals leave it where it was) reaches the earliest expiry of the links
 * it was presented with; a link's account until the horizon reaches the link's own expiry and
 * nothing is reserved on it. Both are queued by that instant, so forgetting costs a queue pop each,
 * and what the ledger holds is what unexpired grants spent, not the whole history. Pairs and links
 * that never expire (the four-argument {@code reserve}) are kept for good.
 */
final class InMemorySpendLedger implements SpendLedger {
  private record SpentPair(GrantId leaf, PresentationNonce nonce) {}

  /** Something to forget once the horizon reaches {@code until}. */
  private record Expiring(Instant until, Object key) {}

  private static final class Account {
    long debited;
    long reserved;
    boolean debitPastRange;
    Instant expiry = Instant.MIN;
  }

  private final Object lock = new Object();
  private final Map<GrantId, Account> accounts = new HashMap<>();
  private final Map<SpentPair, Instant> spent = new HashMap<>();
  private final Map<Long, Reservation> open = new HashMap<>();
  private final PriorityQueue<Expiring> expiring =
      new PriorityQueue<>((a, b) -> a.until().compareTo(b.until()));
  private Instant horizon = Instant.MIN;
  private long nextSerial;

  /**
   * Pairs restored from a snapshot, still packed: looked up by binary search, so a restore costs no
   * object per pair. Moved into {@link #spent} (the live ones only) the first time the horizon
   * reaches the earliest of their instants, {@link #restoredNext}; null from then on.
   */
  private @Nullable PackedSpent restored;

  private Instant restoredNext = Instant.MAX;

  /**
   * Run by {@link #reserve}, {@link #settle} and {@link #release} after each has read what it
   * decides on and before it writes: under the lock, so it changes nothing here. A test sets it
   * (see {@link #betweenReadAndWrite}) to start a competing call at exactly that point, so a ledger
   * that let go of the lock there is caught on every run, not only when the scheduler happens to
   * interleave the two (SettleRaceTest).
   */
  private Runnable betweenReadAndWrite = () -> {};

  InMemorySpendLedger() {}

  /**
   * Sets the hook run between each operation's read and its write. Tests only; set before the
   * ledger is shared, as the field is read without synchronisation of its own.
   */
  void betweenReadAndWrite(Runnable hook) {
    betweenReadAndWrite = Objects.requireNonNull(hook, "hook");
  }

  /** A ledger holding {@code state}; the forgetting queue is rebuilt from the instants in it. */
  InMemorySpendLedger(LedgerState state) {
    horizon = state.horizon();
    nextSerial = state.nextSerial();
    for (LedgerState.Account a : state.accounts()) {
      Account acc = new Account();
      acc.debited = a.debitedUj();
      acc.reserved = a.reservedUj();
      acc.debitPastRange = a.debitPastRange();
      acc.expiry = a.expiry();
      if (accounts.put(a.link(), acc) != null) {
        throw new IllegalArgumentException("two accounts for link " + a.link());
      }
      if (!acc.expiry.equals(Instant.MAX) && !acc.expiry.equals(Instant.MIN)) {
        expiring.add(new Expiring(acc.expiry, a.link()));
      }
    }
    if (state.spent() instanceof PackedSpent packed) {
      restored = packed;
      restoredNext = packed.earliestUntil();
    }
    for (LedgerState.Spent p :
        state.spent() instanceof PackedSpent ? List.<LedgerState.Spent>of() : state.spent()) {
      SpentPair pair = new SpentPair(p.leaf(), p.nonce());
      if (spent.put(pair, p.until()) != null) {
        throw new IllegalArgumentException("pair " + p.leaf() + "/" + p.nonce() + " twice");
      }
      if (!p.until().equals(Instant.MAX)) {
        expiring.add(new Expiring(p.until(), pair));
      }
    }
    for (Reservation r : state.open()) {
      if (open.put(r.serial(), r) != null) {
        throw new IllegalArgumentException("reservation " + r.serial() + " twice");
      }
    }
  }

  @Override
  public LedgerState state() {
    synchronized (lock) {
      List<LedgerState.Account> acc = new ArrayList<>(accounts.size());
      accounts.forEach(
          (link, a) ->
              acc.add(
                  new LedgerState.Account(
                      link, a.debited, a.reserved, a.expiry, a.debitPastRange)));
      acc.sort((x, y) -> x.link().compareTo(y.link()));
      List<LedgerState.Spent> pairs = new ArrayList<>(spent.size());
      spent.forEach((p, until) -> pairs.add(new LedgerState.Spent(p.leaf(), p.nonce(), until)));
      PackedSpent packed = PackedSpent.of(pairs);
      PackedSpent r = restored;
      if (r != null) {
        packed = PackedSpent.merge(r, packed);
      }
      List<Reservation> res = new ArrayList<>(open.values());
      res.sort((x, y) -> Long.compare(x.serial(), y.serial()));
      return new LedgerState(horizon, nextSerial, acc, packed, res);
    }
  }

  @Override
  public Reservation reserve(
      GrantId leaf,
      PresentationNonce nonce,
      List<LinkBudget> links,
      long amountUj,
      Instant decidedAt)
      throws GrantRefusedException {
    Objects.requireNonNull(leaf, "leaf");
    Objects.requireNonNull(nonce, "nonce");
    Objects.requireNonNull(decidedAt, "decidedAt");
    Unsigned.u64("amount", amountUj);
    synchronized (lock) {
      // The horizon moves only once the reservation is admitted, below: a refusal journals
      // nothing, so a horizon it moved would be one no replay rebuilds, and after a clock step
      // the live steward would forget spend (and refuse presentations) that a restarted one keeps
      // (and accepts). Deciding against the horizon as it stands changes no verdict here: step 7
      // passed, so decidedAt is before every link's expiry, and advancing to it would forget
      // nothing this chain holds. The expiry check below still looks as far as decidedAt, so a
      // caller that skips step 7 is refused all the same.
      Instant reach = decidedAt.isAfter(horizon) ? decidedAt : horizon;
      Instant until = Instant.MAX;
      for (int i = 0; i < links.size(); i++) {
        LinkBudget l = links.get(i);
        if (reach.isAfter(Instant.MIN) && !reach.isBefore(l.expiry())) {
          // Its pair and spend may already be forgotten: only refusing keeps replay impossible.
          throw new GrantRefusedException(
              DenialLabel.EXPIRED,
              "expired at " + l.expiry() + ", and this steward has decided as late as " + reach,
              i);
        }
        until = min(until, l.expiry());
      }
      SpentPair pair = new SpentPair(leaf, nonce);
      if (spent.containsKey(pair) || wasRestored(leaf, nonce)) {
        throw new GrantRefusedException(
            DenialLabel.PRESENTATION_SPENT,
            "the presentation of " + leaf + " with nonce " + nonce + " was already spent here");
      }
      long[] remaining = new long[links.size()];
      int least = -1;
      for (int i = 0; i < links.size(); i++) {
        LinkBudget l = links.get(i);
        remaining[i] = snapshot(l.link()).remainingUj(l.budgetUj());
        if (least < 0 || remaining[i] < remaining[least]) {
          least = i;
        }
      }
      if (least >= 0 && remaining[least] < amountUj) {
        throw new GrantRefusedException(
            DenialLabel.BUDGET_EXHAUSTED, shortfall(links, remaining, least, amountUj), least);
      }
      betweenReadAndWrite.run();
      advance(decidedAt);
      spent.put(pair, until);
      if (!until.equals(Instant.MAX)) {
        expiring.add(new Expiring(until, pair));
      }
      for (LinkBudget l : links) {
        Account a = accounts.computeIfAbsent(l.link(), k -> new Account());
        if (a.expiry.isBefore(l.expiry())) {
          a.expiry = l.expiry();
          if (!a.expiry.equals(Instant.MAX)) {
            expiring.add(new Expiring(a.expiry, l.link()));
          }
        }
        a.reserved = Unsigned.saturatingAdd(a.reserved, amountUj);
      }
      Reservation r = new Reservation(nextSerial++, leaf, nonce, links, amountUj);
      open.put(r.serial(), r);
      return r;
    }
  }

  /**
   * Why a chain cannot reserve {@code amountUj}: the link with the least left (the chain's
   * remaining budget, the one that binds), then any other link also below the ceiling. Naming only
   * the first short link from the root misled: after a debit on a shard, an ancestor with more left
   * than the shard but still less than the ceiling was named, with its larger figure.
   */
  private static String shortfall(
      List<LinkBudget> links, long[] remaining, int least, long amountUj) {
    StringBuilder why =
        new StringBuilder("link ")
            .append(links.get(least).link())
            .append(" has ")
            .append(Math.max(0, remaining[least]))
            .append(" µJ left, below the ")
            .append(amountUj)
            .append(" µJ ceiling");
    String also = "; also below it: ";
    for (int i = 0; i < links.size(); i++) {
      if (i != least && remaining[i] < amountUj) {
        why.append(also)
            .append("link ")
            .append(i)
            .append(", ")
            .append(links.get(i).link())
            .append(", with ")
            .append(Math.max(0, remaining[i]))
            .append(" µJ left");
        also = "; ";
      }
    }
    return why.toString();
  }

  @Override
  public List<LinkSpend> settle(Reservation reservation, long debitUj) {
    Unsigned.u64("debit", debitUj);
    synchronized (lock) {
      close(reservation);
      List<LinkSpend> after = new ArrayList<>(reservation.links().size());
      for (LinkBudget l : reservation.links()) {
        Account a = account(l.link());
        LinkSpend s =
            new LinkSpend(
                    l.link(), a.debited, a.reserved - reservation.amountUj(), a.debitPastRange)
                .plusDebit(debitUj);
        betweenReadAndWrite.run();
        a.reserved = s.reservedUj();
        a.debited = s.debitedUj();
        a.debitPastRange = s.debitPastRange();
        after.add(s);
        forgetIfDone(l.link(), a);
      }
      return after;
    }
  }

  /** The account of a link a reservation holds: reserving opened it, so it is there. */
  private Account account(GrantId link) {
    return java.util.Objects.requireNonNull(accounts.get(link), "no account for reserved link");
  }

  @Override
  public void release(Reservation reservation) {
    synchronized (lock) {
      close(reservation);
      for (LinkBudget l : reservation.links()) {
        Account a = account(l.link());
        long reserved = a.reserved - reservation.amountUj();
        betweenReadAndWrite.run();
        a.reserved = reserved;
        forgetIfDone(l.link(), a);
      }
    }
  }

  @Override
  public LinkSpend spend(GrantId link) {
    synchronized (lock) {
      return snapshot(link);
    }
  }

  @Override
  public boolean isSpent(GrantId leaf, PresentationNonce nonce) {
    synchronized (lock) {
      return spent.containsKey(new SpentPair(leaf, nonce)) || wasRestored(leaf, nonce);
    }
  }

  @Override
  public long liveEntries() {
    synchronized (lock) {
      PackedSpent r = restored;
      return (long) spent.size() + (r == null ? 0 : r.size()) + accounts.size();
    }
  }

  /** Moves the horizon to {@code t} if later, forgetting what expired by then. */
  private void advance(Instant t) {
    if (!t.isAfter(horizon)) {
      return;
    }
    horizon = t;
    if (restored != null && !horizon.isBefore(restoredNext)) {
      materialise();
    }
    while (!expiring.isEmpty() && !horizon.isBefore(expiring.peek().until())) {
      Object key = expiring.poll().key();
      if (key instanceof SpentPair pair) {
        spent.remove(pair);
      } else if (key instanceof GrantId link) {
        Account a = accounts.get(link);
        if (a != null) {
          forgetIfDone(link, a);
        }
      }
    }
  }

  /** Whether (leaf, nonce) is among the pairs restored packed. */
  private boolean wasRestored(GrantId leaf, PresentationNonce nonce) {
    PackedSpent r = restored;
    return r != null && r.indexOf(leaf, nonce) >= 0;
  }

  /**
   * Moves the restored pairs the horizon has not passed into {@link #spent} and the forgetting
   * queue, and drops the rest: once one of them is due to be forgotten, the ordinary bookkeeping
   * takes them over. Paid once, by the first decision after the earliest restored pair expires.
   */
  private void materialise() {
    PackedSpent r = java.util.Objects.requireNonNull(restored);
    restored = null;
    restoredNext = Instant.MAX;
    for (int i = 0; i < r.size(); i++) {
      Instant until = r.until(i);
      if (horizon.isBefore(until)) {
        LedgerState.Spent p = r.get(i);
        SpentPair pair = new SpentPair(p.leaf(), p.nonce());
        spent.put(pair, until);
        if (!until.equals(Instant.MAX)) {
          expiring.add(new Expiring(until, pair));
        }
      }
    }
  }

  /** Drops a link's account once the horizon reached its expiry and nothing is reserved on it. */
  private void forgetIfDone(GrantId link, Account a) {
    if (a.reserved == 0 && !a.expiry.equals(Instant.MIN) && !horizon.isBefore(a.expiry)) {
      accounts.remove(link);
    }
  }

  private void close(Reservation reservation) {
    Reservation known = open.get(reservation.serial());
    if (known == null || !known.equals(reservation)) {
      throw new IllegalStateException(
          "reservation " + reservation.serial() + " is not open in this ledger");
    }
    open.remove(reservation.serial());
  }

  private LinkSpend snapshot(GrantId link) {
    Account a = accounts.get(link);
    return a == null ? new LinkSpend(link, 0, 0) : spendOf(link, a);
  }

  private static LinkSpend spendOf(GrantId link, Account a) {
    return new LinkSpend(link, a.debited, a.reserved, a.debitPastRange);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
