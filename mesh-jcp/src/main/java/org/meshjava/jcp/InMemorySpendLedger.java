package org.meshjava.jcp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The in-memory {@link SpendLedger}. One lock guards all state: a reservation touches every link of
 * a chain, and chains share links, so per-link locks would need an ordering discipline for no
 * measurable gain at the rate a steward serves.
 */
final class InMemorySpendLedger implements SpendLedger {
  private record SpentPair(GrantId leaf, PresentationNonce nonce) {}

  private static final class Account {
    long debited;
    long reserved;
  }

  private final Object lock = new Object();
  private final Map<GrantId, Account> accounts = new HashMap<>();
  private final Set<SpentPair> spent = new HashSet<>();
  private final Map<Long, Reservation> open = new HashMap<>();
  private long nextSerial;

  @Override
  public Reservation reserve(
      GrantId leaf, PresentationNonce nonce, List<LinkBudget> links, long amountUj)
      throws GrantRefusedException {
    Objects.requireNonNull(leaf, "leaf");
    Objects.requireNonNull(nonce, "nonce");
    if (amountUj < 0) {
      throw new IllegalArgumentException("amount must be non-negative: " + amountUj);
    }
    synchronized (lock) {
      SpentPair pair = new SpentPair(leaf, nonce);
      if (spent.contains(pair)) {
        throw new GrantRefusedException(
            DenialLabel.PRESENTATION_SPENT,
            "the presentation of " + leaf + " with nonce " + nonce + " was already spent here");
      }
      for (int i = 0; i < links.size(); i++) {
        LinkBudget l = links.get(i);
        long remaining = snapshot(l.link()).remainingUj(l.budgetUj());
        if (remaining < amountUj) {
          throw new GrantRefusedException(
              DenialLabel.BUDGET_EXHAUSTED,
              "link "
                  + l.link()
                  + " has "
                  + Math.max(0, remaining)
                  + " µJ left, below the "
                  + amountUj
                  + " µJ ceiling",
              i);
        }
      }
      spent.add(pair);
      for (LinkBudget l : links) {
        Account a = accounts.computeIfAbsent(l.link(), k -> new Account());
        a.reserved = saturatingAdd(a.reserved, amountUj);
      }
      Reservation r = new Reservation(nextSerial++, leaf, nonce, links, amountUj);
      open.put(r.serial(), r);
      return r;
    }
  }

  @Override
  public List<LinkSpend> settle(Reservation reservation, long debitUj) {
    if (debitUj < 0) {
      throw new IllegalArgumentException("debit must be non-negative: " + debitUj);
    }
    synchronized (lock) {
      close(reservation);
      List<LinkSpend> after = new ArrayList<>(reservation.links().size());
      for (LinkBudget l : reservation.links()) {
        Account a = account(l.link());
        a.reserved -= reservation.amountUj();
        a.debited = saturatingAdd(a.debited, debitUj);
        after.add(new LinkSpend(l.link(), a.debited, a.reserved));
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
        account(l.link()).reserved -= reservation.amountUj();
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
      return spent.contains(new SpentPair(leaf, nonce));
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
    return a == null ? new LinkSpend(link, 0, 0) : new LinkSpend(link, a.debited, a.reserved);
  }

  private static long saturatingAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }
}
