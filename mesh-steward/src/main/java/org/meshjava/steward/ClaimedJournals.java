package org.meshjava.steward;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import org.meshjava.journal.Journal;

/**
 * The journals that stewards in this process were built over and have not yet closed. A journal
 * serves one steward at a time: two over one journal would each continue the chain from the same
 * head and seal receipts under the same numbers, a fork no restart can replay (§2.2, §6.3). A file
 * journal's lock keeps a second open of its file out, but not a second steward handed the same open
 * journal; this does.
 *
 * <p>Held weakly, so a steward that is never closed does not keep its journal reachable here; a
 * journal is the same journal as one claimed when it is {@code equals} to it (none of ours
 * overrides {@code equals}, so that is the same object).
 */
final class ClaimedJournals {
  private static final Set<Journal> CLAIMED =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<Journal, Boolean>()));

  private ClaimedJournals() {}

  /** Claims {@code journal} for a steward being built; false if another steward holds it. */
  static boolean claim(Journal journal) {
    // The storage, not the object handed over: a decorator around a claimed journal (a metrics
    // wrapper, a ForwardingJournal of the application's) writes into the same records.
    return CLAIMED.add(journal.storage());
  }

  /** Gives {@code journal} up: its steward closed, or was never built. */
  static void release(Journal journal) {
    CLAIMED.remove(journal.storage());
  }
}
