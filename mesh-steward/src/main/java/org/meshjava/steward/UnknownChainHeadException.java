package org.meshjava.steward;

import java.util.Objects;
import org.meshjava.core.identity.DidKey;

/**
 * The steward refuses to start because it cannot know where its identity's receipt chain stands
 * (§6.3): the identity outlives the process (its key was passed to {@link
 * Steward#builder(org.meshjava.core.crypto.SigningKey)}), its journal records no receipt, and no
 * {@link Steward.Builder#chainHead chain head} was given. The identity may have sealed receipts
 * that a lost or new journal does not show; starting again at sequence 0 would then fork a chain
 * that callers hold. The operator resolves it: {@link org.meshjava.receipt.ChainHead#GENESIS} for
 * an identity that never sealed (or whose old chain is abandoned), or the head to continue from.
 */
public final class UnknownChainHeadException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient DidKey identity;

  /** Creates the exception for {@code identity} over the journal {@code journal} describes. */
  public UnknownChainHeadException(DidKey identity, String journal) {
    super(
        "steward "
            + Objects.requireNonNull(identity, "identity")
            + ": its journal ("
            + journal
            + ") records no receipt, so where this identity's receipt chain stands is unknown;"
            + " if it has never sealed, start its chain at 0 explicitly (chainHead(GENESIS),"
            + " mesh serve --fresh-chain), or continue it from its last receipt");
    this.identity = identity;
  }

  /** The identity whose chain head is unknown. */
  public DidKey identity() {
    return identity;
  }
}
