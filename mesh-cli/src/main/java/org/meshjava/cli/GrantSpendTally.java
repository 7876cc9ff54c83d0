package org.meshjava.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.meshjava.core.Unsigned;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.LinkSpend;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Unresolved;

/**
 * What each grant link was debited, summed from a journal's records as {@code mesh journal inspect}
 * streams them, for as long as the journal holds them.
 *
 * <p>Why not the replay's spend ledger: it forgets a link's spend once decisions pass the link's
 * expiry (SPEC 30 §8), which a steward needs for bounded memory, but then a grant debited before it
 * expired read "spent 0 uJ", its whole budget left. An audit of the journal must show what the
 * journal says. Memory: one figure per link presented, and the chain of each authorisation not yet
 * debited. Not thread-safe; one per inspection.
 */
final class GrantSpendTally {
  private final Map<Long, GrantChain> undebited = new HashMap<>();
  private final Map<GrantId, LinkSpend> debited = new HashMap<>();
  private final Map<GrantId, Long> reserved = new HashMap<>();

  /** Takes the next record in journal order. */
  void accept(JournalRecord r) {
    switch (r.entry()) {
      case JournalEntry.Authorised a -> undebited.put(r.seq(), a.presentation().chain());
      case JournalEntry.Debited d -> {
        GrantChain chain = undebited.remove(d.authorised());
        if (chain != null) {
          for (SignedGrant link : chain.links()) {
            // As the ledger sums: past 2^63 − 1 the figure stops and says so (SPEC 30 §8).
            debited.put(link.id(), spend(link.id()).plusDebit(d.debitedUj()));
          }
        }
      }
      default -> {}
    }
  }

  /**
   * Holds the ceiling of each serve still unresolved at the journal's end on every link of its
   * chain, as a restart does.
   */
  void holdUnresolved(List<Unresolved> unresolved) {
    for (Unresolved u : unresolved) {
      GrantChain chain = undebited.get(u.authorisedSeq());
      if (chain != null) {
        for (SignedGrant link : chain.links()) {
          reserved.merge(link.id(), u.ceilingUj(), Unsigned::saturatingAdd);
        }
      }
    }
  }

  /** What {@code link} was debited, and holds for unresolved serves, by the records taken. */
  LinkSpend spend(GrantId link) {
    LinkSpend d = debited.getOrDefault(link, new LinkSpend(link, 0, 0));
    return new LinkSpend(link, d.debitedUj(), reserved.getOrDefault(link, 0L), d.debitPastRange());
  }

  /** What {@code chain} has left: the least over its links, never below 0. */
  long remainingUj(GrantChain chain) {
    long remaining = Long.MAX_VALUE;
    for (SignedGrant link : chain.links()) {
      remaining = Math.min(remaining, spend(link.id()).remainingUj(link.grant().budgetUj()));
    }
    return Math.max(0, remaining);
  }
}
