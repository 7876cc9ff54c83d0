package org.meshjava.jcp;

/** Why the library refused to sign a grant it was asked to issue. Stable. */
public enum IssuanceProblem {
  /** The signing key is not the grant's issuer (or not the holder of the parent). */
  WRONG_KEY,
  /** The child does not name its parent, or its issuer is not the parent's subject. */
  BROKEN_CHAIN,
  /** The child would grant more than its parent. */
  NOT_ATTENUATED,
  /** Shard budgets sum to more than the parent's budget. */
  OVER_SUM,
  /** A sharding names no steward, or one steward twice. */
  BAD_SHARDS
}
