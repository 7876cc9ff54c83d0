package org.meshjava.journal.internal;

import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.SignedGrant;

/**
 * The grant chains a journal has recorded, by id, kept only while a later record may still name
 * them: what {@code Authorised} records are written and read against (SPEC.md 60.2).
 *
 * <p><b>Design note: when a chain can be forgotten.</b> A chain is written once, in a {@code Chain}
 * record, and later {@code Authorised} records name it by id. The gate refuses any presentation
 * whose chain's earliest link expiry is at or before its horizon, the latest time at which it
 * admitted a decision (SPEC 30 §8); every {@code Authorised} record is such a decision, and a
 * decision is journalled in the order it was taken. So once an {@code Authorised} record decided at
 * or after a chain's earliest expiry has been recorded, no later record can authorise that chain,
 * and the chain is dropped here. A replay applies the same rule at the same records, so a journal
 * replayed from its start, or from a snapshot, knows every chain a record names. Decoding alone
 * never forgets: a reader may decode records past the place it applies and captures (the
 * snapshotter does), and a record between that place and the one that passed a chain's expiry may
 * still name the chain. A writer that forgets a chain a reader still holds only writes its {@code
 * Chain} record again, which a reader takes as it takes the first. Without this, every chain ever
 * presented stayed in memory for as long as the steward ran (twice: the journal's table and the
 * snapshotter's) and in every snapshot, so callers that issue a grant per call grew them without
 * bound.
 *
 * <p>Not thread-safe: its owner (a codec under the journal's append lock, a replay) guards it.
 */
public final class RecordedChains {
  /** A chain to forget once decisions reach {@code at}. */
  private record Expiring(Instant at, ContentId id) {}

  private final Map<ContentId, GrantChain> chains;
  private final PriorityQueue<Expiring> expiring =
      new PriorityQueue<>(Comparator.comparing(Expiring::at));

  /**
   * Tracks {@code chains} (the caller's table, added to and pruned in place), and what it holds.
   */
  public RecordedChains(Map<ContentId, GrantChain> chains) {
    this.chains = Objects.requireNonNull(chains, "chains");
    chains.forEach(this::queue);
  }

  /** Notes a chain as recorded. */
  public void put(ContentId id, GrantChain chain) {
    chains.put(id, chain);
    queue(id, chain);
  }

  /** Whether a chain with this id is recorded and not yet forgotten. */
  public boolean contains(ContentId id) {
    return chains.containsKey(id);
  }

  /** The chain with this id, or null when none is known. */
  public @Nullable GrantChain get(ContentId id) {
    return chains.get(id);
  }

  /**
   * Notes that a decision taken at {@code decidedAt} was recorded, and forgets every chain whose
   * earliest link expiry is at or before the latest such time.
   */
  public void decided(Instant decidedAt) {
    while (!expiring.isEmpty() && !decidedAt.isBefore(expiring.peek().at())) {
      chains.remove(expiring.poll().id());
    }
  }

  /** The earliest expiry among a chain's links: after it, no presentation of it is accepted. */
  static Instant earliestExpiry(GrantChain chain) {
    Instant earliest = Instant.MAX;
    for (SignedGrant link : chain.links()) {
      Instant e = link.grant().expiry();
      earliest = e.isBefore(earliest) ? e : earliest;
    }
    return earliest;
  }

  private void queue(ContentId id, GrantChain chain) {
    expiring.add(new Expiring(earliestExpiry(chain), id));
  }
}
