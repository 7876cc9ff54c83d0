package org.meshjava.jcp;

import java.util.Objects;
import org.meshjava.core.Unsigned;
import org.meshjava.core.identity.DidKey;

/**
 * One steward's share of a sharded grant (JCP §4.5 as mesh §2.1 cites it).
 *
 * @param steward the steward that will hold the child
 * @param budgetUj its share of the parent's budget in µJ, non-negative
 */
public record Shard(DidKey steward, long budgetUj) {
  /** Validates the share. */
  public Shard {
    Objects.requireNonNull(steward, "steward");
    Unsigned.u64("a share", budgetUj);
  }
}
