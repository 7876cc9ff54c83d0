package org.meshjava.journal.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.jcp.Gate;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.journal.RecordedReceipt;
import org.meshjava.journal.Suspension;
import org.meshjava.journal.Unresolved;

/**
 * Re-establishes a steward's state from its journal before it serves again (§2.2, §6.3): every
 * authorisation is decided again by the gate at its recorded time, every debit is applied to the
 * serve it belongs to, and the receipt chain's head is the last {@code Sealed} entry. Replayed
 * presentations are spent in the gate's ledger, so none can be spent again.
 *
 * <p>Anything a steward would never have written refuses the replay with {@link
 * JournalException.Reason#REPLAY_REFUSED}, naming the record: a decision the gate refuses (which
 * includes a presentation spent twice), a debit with no authorisation or a second debit of one, a
 * receipt out of sequence, a granted receipt that names no debited authorisation, and a debit that
 * contradicts the receipt the steward signed for the same serve (the granted {@code Sealed} record
 * carries the envelope; its signed energy figure is the truth). Authorisations never debited come
 * back as {@link Unresolved}: they keep their reservation (the request's ceiling), are logged, and
 * are never retried.
 *
 * <p>The security decisions replay as well: a {@code Revoked} record is verified again and added to
 * the gate's revocations in record order (so decisions recorded before it stand), and a {@code
 * Suspended} record not followed by a {@code Resumed} one comes back as {@link
 * Result#suspension()}; a {@code Resumed} with no suspension in force is refused.
 *
 * <p>Stateless; one call replays one journal into one gate.
 */
public final class JournalReplay {
  private JournalReplay() {}

  /**
   * What replay re-established.
   *
   * @param lastSealed the last receipt recorded: its sequence and envelope id
   * @param receipts every recorded receipt's envelope id by sequence; none from a replay that keeps
   *     no ids ({@link ReplayState#freshWithoutIds})
   * @param receiptsRecorded how many receipts are recorded, ids kept or not
   * @param unresolved serves authorised but never debited
   * @param authorisations how many authorisations were replayed
   * @param suspension the suspension of grants in force at the journal's end, if one is
   * @param revocations how many revocations were replayed into the gate
   */
  public record Result(
      Optional<RecordedReceipt> lastSealed,
      ReceiptIds receipts,
      long receiptsRecorded,
      List<Unresolved> unresolved,
      int authorisations,
      Optional<Suspension> suspension,
      int revocations) {
    /** Copies the collections. */
    public Result {
      Objects.requireNonNull(lastSealed, "lastSealed");
      Objects.requireNonNull(receipts, "receipts");
      if (receiptsRecorded < receipts.size()) {
        throw new IllegalArgumentException(
            receiptsRecorded + " receipts recorded, fewer than the " + receipts.size() + " ids");
      }
      unresolved = List.copyOf(unresolved);
      Objects.requireNonNull(suspension, "suspension");
    }
  }

  /**
   * Replays {@code records} through {@code gate}, whose ledger must be empty. For a journal of any
   * length, stream its records into a {@link ReplayState} instead.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the first record that cannot be replayed
   */
  public static Result replay(List<JournalRecord> records, Gate gate) throws JournalException {
    ReplayState state = ReplayState.fresh(gate);
    state.applyAll(records);
    return state.result();
  }
}
