package org.meshjava.journal;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.LedgerState;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * The state replaying a journal up to {@code position} builds (§2.2), as plain values: what a
 * {@link Snapshot} carries, so that a restart replays only the records after it. Immutable.
 *
 * @param position the journal position the state covers: records {@code 0 .. count - 1}
 * @param ledger the gate's spend ledger: link accounts, spent presentation nonces still inside
 *     their validity window, open reservations
 * @param revocations every revoked grant with the time it is revoked from
 * @param suspension the suspension of grants in force, if one is
 * @param lastSealed the receipt chain's head: the last receipt recorded
 * @param receipts every recorded receipt's envelope id, by sequence
 * @param open authorisations not yet debited (the serves in flight, or unresolved)
 * @param settled debits whose receipt is not yet recorded
 * @param checkpoint the last transparency-log checkpoint recorded, with its cosignatures
 * @param chains every grant chain recorded, by the order of first recording
 * @param authorisations how many authorisations the covered records hold
 * @param revocationsReplayed how many {@code Revoked} records the covered records hold
 */
public record SnapshotState(
    JournalPosition position,
    LedgerState ledger,
    Map<GrantId, Instant> revocations,
    Optional<Suspension> suspension,
    Optional<RecordedReceipt> lastSealed,
    ReceiptIds receipts,
    List<OpenAuthorisation> open,
    List<SettledDebit> settled,
    Optional<SignedNote> checkpoint,
    List<GrantChain> chains,
    long authorisations,
    long revocationsReplayed) {

  /** Validates and copies. */
  public SnapshotState {
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(ledger, "ledger");
    revocations = Map.copyOf(revocations);
    Objects.requireNonNull(suspension, "suspension");
    Objects.requireNonNull(lastSealed, "lastSealed");
    Objects.requireNonNull(receipts, "receipts");
    open = List.copyOf(open);
    settled = List.copyOf(settled);
    Objects.requireNonNull(checkpoint, "checkpoint");
    chains = List.copyOf(chains);
    if (authorisations < 0 || revocationsReplayed < 0) {
      throw new IllegalArgumentException("counts are non-negative");
    }
  }

  /**
   * An authorisation recorded but not yet debited at the snapshot's position.
   *
   * @param seq its {@code Authorised} record
   * @param entry the record's entry
   * @param reservation the serial of the ledger reservation it holds
   */
  public record OpenAuthorisation(long seq, JournalEntry.Authorised entry, long reservation) {
    /** Validates. */
    public OpenAuthorisation {
      Objects.requireNonNull(entry, "entry");
    }
  }

  /**
   * A debit recorded whose granted receipt is not yet recorded at the snapshot's position.
   *
   * @param authorised the {@code Authorised} record it settles
   * @param debitSeq its {@code Debited} record
   * @param requestId the authorised request's id
   * @param grantId the leaf grant authorised
   * @param debit the record's entry
   */
  public record SettledDebit(
      long authorised,
      long debitSeq,
      org.meshjava.core.ContentId requestId,
      GrantId grantId,
      JournalEntry.Debited debit) {
    /** Validates. */
    public SettledDebit {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(grantId, "grantId");
      Objects.requireNonNull(debit, "debit");
    }
  }
}
