package org.meshjava.jcp;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.meshjava.core.DenialLabel;

/**
 * A spend ledger with a planted race, for proving that the model check finds one: {@link #reserve}
 * checks the pair and the budgets under the lock, lets go of it, and takes it again to act. Two
 * reserves can then both pass the budget check for the one ceiling left. Everything else is as
 * {@link InMemorySpendLedger} without expiry. Test code only.
 */
final class CheckThenActLedger implements SpendLedger {
  private record Pair(GrantId leaf, PresentationNonce nonce) {}

  private final Object lock = new Object();
  private final Map<GrantId, long[]> accounts = new HashMap<>();
  private final Set<Pair> spent = new HashSet<>();
  private final Map<Long, Reservation> open = new HashMap<>();
  private long nextSerial;

  private long[] account(GrantId link) {
    return accounts.computeIfAbsent(link, k -> new long[2]);
  }

  @Override
  public Reservation reserve(
      GrantId leaf,
      PresentationNonce nonce,
      List<LinkBudget> links,
      long amountUj,
      Instant decidedAt)
      throws GrantRefusedException {
    Pair pair = new Pair(leaf, nonce);
    synchronized (lock) {
      if (spent.contains(pair)) {
        throw new GrantRefusedException(DenialLabel.PRESENTATION_SPENT, "spent");
      }
      for (int i = 0; i < links.size(); i++) {
        long[] a = account(links.get(i).link());
        if (links.get(i).budgetUj() - a[0] - a[1] < amountUj) {
          throw new GrantRefusedException(DenialLabel.BUDGET_EXHAUSTED, "exhausted", i);
        }
      }
    }
    // The planted race: another reserve may pass the same checks before this one acts.
    synchronized (lock) {
      spent.add(pair);
      for (LinkBudget l : links) {
        account(l.link())[1] += amountUj;
      }
      Reservation r = new Reservation(nextSerial++, leaf, nonce, links, amountUj);
      open.put(r.serial(), r);
      return r;
    }
  }

  @Override
  public List<LinkSpend> settle(Reservation reservation, long debitUj) {
    synchronized (lock) {
      close(reservation);
      List<LinkSpend> after = new ArrayList<>();
      for (LinkBudget l : reservation.links()) {
        long[] a = account(l.link());
        a[1] -= reservation.amountUj();
        a[0] += debitUj;
        after.add(new LinkSpend(l.link(), a[0], a[1]));
      }
      return after;
    }
  }

  @Override
  public void release(Reservation reservation) {
    synchronized (lock) {
      close(reservation);
      for (LinkBudget l : reservation.links()) {
        account(l.link())[1] -= reservation.amountUj();
      }
    }
  }

  private void close(Reservation reservation) {
    if (open.remove(reservation.serial()) == null) {
      throw new IllegalStateException("not open: " + reservation.serial());
    }
  }

  @Override
  public LinkSpend spend(GrantId link) {
    synchronized (lock) {
      long[] a = accounts.getOrDefault(link, new long[2]);
      return new LinkSpend(link, a[0], a[1]);
    }
  }

  @Override
  public boolean isSpent(GrantId leaf, PresentationNonce nonce) {
    synchronized (lock) {
      return spent.contains(new Pair(leaf, nonce));
    }
  }

  @Override
  public long liveEntries() {
    synchronized (lock) {
      return (long) spent.size() + accounts.size();
    }
  }
}
