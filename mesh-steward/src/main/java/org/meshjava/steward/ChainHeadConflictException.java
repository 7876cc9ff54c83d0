package org.meshjava.steward;

import java.util.Objects;
import org.meshjava.receipt.ChainHead;

/**
 * The steward refuses to start because it was given a chain head (§6.3) for a journal that already
 * records receipts: the chain continues from the journal's last receipt, so a head is said only on
 * the first start of a key whose journal records none ({@link Steward.Builder#chainHead}). The
 * counterpart of {@link UnknownChainHeadException}, which refuses a start that needed a head and
 * was given none; an application that cannot tell a first start from a later one catches the two by
 * type. An {@link IllegalArgumentException}, as this refusal always was. The journal is closed.
 */
public final class ChainHeadConflictException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient ChainHead given;
  private final long lastRecorded;

  /** Only the builder refuses with it. */
  ChainHeadConflictException(ChainHead given, String journal, long lastRecorded) {
    super(
        "the chainHead given (next receipt "
            + Objects.requireNonNull(given, "given").nextSequence()
            + ") conflicts with journal "
            + journal
            + ", which records receipts up to "
            + lastRecorded
            + ": the chain continues from the journal's last receipt, so give no chain head"
            + " (mesh serve: drop --fresh-chain)");
    this.given = given;
    this.lastRecorded = lastRecorded;
  }

  /** The head the builder was given. */
  public ChainHead given() {
    return given;
  }

  /** The sequence of the last receipt the journal records, which the chain continues from. */
  public long lastRecorded() {
    return lastRecorded;
  }
}
