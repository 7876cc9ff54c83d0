package org.meshjava.journal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.Authorisation;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * carries the envelope; its signed energy figure is the truth). Authorisations never debited come back as {@link Unresolved}: they keep
 * their reservation (the request's ceiling), are logged, and are never retried.
 *
 * <p>The security decisions replay as well: a {@code Revoked} record is verified again and added
 * to the gate's revocations in record order (so decisions recorded before it stand), and a {@code
 * Suspended} record not followed by a {@code Resumed} one comes back as {@link
 * Result#suspension()}; a {@code Resumed} with no suspension in force is refused.
 *
 * <p>Stateless; one call replays one journal into one gate.
 */
public final class JournalReplay {
  private static final Logger LOG = LoggerFactory.getLogger(JournalReplay.class);

  private JournalReplay() {}

  /**
   * What replay re-established.
   *
   * @param lastSealed the last receipt recorded: its sequence and envelope id
   * @param sealed every recorded receipt's envelope id by sequence
   * @param unresolved serves authorised but never debited
   * @param authorisations how many authorisations were replayed
   * @param suspension the suspension of grants in force at the journal's end, if one is
   * @param revocations how many revocations were replayed into the gate
   */
  public record Result(
      Optional<Sealed> lastSealed,
      Map<Long, ContentId> sealed,
      List<Unresolved> unresolved,
      int authorisations,
      Optional<Suspension> suspension,
      int revocations) {
    /** Copies the collections. */
    public Result {
      Objects.requireNonNull(lastSealed, "lastSealed");
      sealed = Map.copyOf(sealed);
      unresolved = List.copyOf(unresolved);
      Objects.requireNonNull(suspension, "suspension");
    }
  }

  /**
   * A suspension of grants the journal records and no later {@code Resumed} lifts (§2.2).
   *
   * @param record the {@code Suspended} record
   * @param receiptSequence the sequence of the receipt the witness was shown
   * @param envelopeId that receipt's envelope id
   */
  public record Suspension(long record, long receiptSequence, ContentId envelopeId) {
    /** Validates the record. */
    public Suspension {
      Objects.requireNonNull(envelopeId, "envelopeId");
    }

    @Override
    public String toString() {
      return "journal record " + record + ": shown receipt " + receiptSequence + " (envelope "
          + envelopeId + ") that the journal did not hold; restore the journal, then lift with"
          + " `mesh journal resume-grants`";
    }
  }

  /**
   * A receipt the journal recorded.
   *
   * @param sequence its chain sequence
   * @param envelopeId its envelope's content id
   */
  public record Sealed(long sequence, ContentId envelopeId) {}

  /**
   * Replays {@code records} through {@code gate}, whose ledger must be empty.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the first record that cannot be
   *     replayed
   */
  public static Result replay(List<JournalRecord> records, Gate gate) throws JournalException {
    // Signature checks dominate a replay and do not depend on order: do them in parallel first.
    // A failure here is ignored; the ordered decision below checks again and names the record.
    records.parallelStream()
        .filter(r -> r.entry() instanceof JournalEntry.Authorised)
        .forEach(
            r -> {
              JournalEntry.Authorised a = (JournalEntry.Authorised) r.entry();
              try {
                a.presentation().verifyFor(a.request().id());
              } catch (org.meshjava.jcp.GrantRefusedException ignored) {
                // Refused again, in order, by the gate.
              }
            });
    Map<Long, Object> envelopes = openEnvelopes(records);
    Optional<Suspension> suspension = Optional.empty();
    int revocations = 0;
    Map<Long, Pending> open = new LinkedHashMap<>();
    Map<Long, Settled> settled = new HashMap<>();
    Map<Long, ContentId> sealed = new HashMap<>();
    Optional<Sealed> last = Optional.empty();
    int authorisations = 0;
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Chain c -> {
          // Only a carrier for the authorisations that follow; nothing to decide.
        }
        case JournalEntry.Authorised a -> {
          open.put(r.seq(), new Pending(decide(r.seq(), a, gate), a));
          authorisations++;
        }
        case JournalEntry.Debited d -> {
          Pending p = open.remove(d.authorised());
          if (p == null) {
            throw refused(r.seq(), "debits authorisation " + d.authorised()
                + ", which is not an open authorisation in this journal");
          }
          DebitResult result = gate.debit(p.authorisation(), d.debitedUj());
          Optional<String> breach = result.breach().map(l -> l.wire());
          if (!breach.equals(d.breach())) {
            throw refused(r.seq(), "records breach " + d.breach().orElse("(none)")
                + " but the replayed debit gives " + breach.orElse("(none)"));
          }
          settled.put(d.authorised(), new Settled(p.authorisation(), r.seq(), d));
        }
        case JournalEntry.Sealed s -> {
          long expected = last.map(l -> l.sequence() + 1).orElse(s.sequence() == 0 ? 0L : -1L);
          if (s.sequence() != expected) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where receipt "
                + (expected < 0 ? "0" : expected) + " comes next");
          }
          if (s.authorised().isPresent()) {
            long k = s.authorised().getAsLong();
            if (open.containsKey(k)) {
              throw refused(r.seq(), "seals a granted receipt before its debit");
            }
            Settled st = settled.remove(k);
            if (st == null) {
              throw refused(r.seq(), "names authorisation " + k
                  + ", which is no debited, unsealed authorisation in this journal");
            }
            crossCheck(r.seq(), s, envelopes.get(r.seq()), st, gate, sealed);
          }
          sealed.put(s.sequence(), s.envelopeId());
          last = Optional.of(new Sealed(s.sequence(), s.envelopeId()));
        }
        case JournalEntry.Suspended x -> {
          suspension = Optional.of(suspended(r.seq(), x, gate));
        }
        case JournalEntry.Resumed x -> {
          if (suspension.isEmpty()) {
            throw refused(r.seq(), "lifts a suspension, but none is in force");
          }
          LOG.info("journal record {}: grants resumed by the operator: {}", r.seq(), x.note());
          suspension = Optional.empty();
        }
        case JournalEntry.Revoked x -> {
          try {
            x.revocation().verify();
          } catch (GrantRefusedException e) {
            throw refused(r.seq(), "records a revocation that does not verify: " + e.getMessage());
          }
          gate.revocations().revoke(x.revocation().grantId(), x.revocation().from());
          revocations++;
        }
        case JournalEntry.Checkpoint x -> {
          // Checked by the steward against the tree it rebuilds from the Sealed records (§65).
        }
      }
    }
    List<Unresolved> unresolved = new ArrayList<>();
    for (Map.Entry<Long, Pending> e : open.entrySet()) {
      Authorisation auth = e.getValue().authorisation();
      Unresolved u =
          new Unresolved(
              e.getKey(),
              auth.presentation().caller(),
              e.getValue().entry().backend(),
              auth.requestId(),
              auth.grantId(),
              auth.ceilingUj(),
              auth.decisionTime());
      LOG.warn("{}; it stays debited at its ceiling and is not retried", u);
      unresolved.add(u);
    }
    suspension.ifPresent(x -> LOG.error("grants stay suspended: {}", x));
    return new Result(last, sealed, unresolved, authorisations, suspension, revocations);
  }

  private record Pending(Authorisation authorisation, JournalEntry.Authorised entry) {}

  /** A recorded suspension, checked: its evidence is a receipt this steward sealed. */
  private static Suspension suspended(long seq, JournalEntry.Suspended x, Gate gate)
      throws JournalException {
    SealedReceipt shown;
    try {
      shown = Jcr1.open(x.envelope());
    } catch (ReceiptException e) {
      throw refused(seq, "records a suspension whose evidence does not verify: " + e.getMessage());
    }
    if (!shown.receipt().steward().equals(gate.holder()) || shown.receipt().sequence() != x.sequence()) {
      throw refused(seq, "records a suspension whose evidence is not receipt " + x.sequence()
          + " of the steward " + gate.holder());
    }
    return new Suspension(seq, x.sequence(), x.envelope().id());
  }

  /** A debited authorisation waiting for its {@code Sealed} record (none follows a refused serve). */
  private record Settled(Authorisation authorisation, long debitSeq, JournalEntry.Debited debit) {}

  /**
   * Opens every granted {@code Sealed} record's envelope, in parallel (a signature check each):
   * by record sequence, the {@link SealedReceipt} or the {@link ReceiptException} that refused it.
   */
  private static Map<Long, Object> openEnvelopes(List<JournalRecord> records) {
    Map<Long, Object> out = new ConcurrentHashMap<>();
    records.parallelStream()
        .filter(r -> r.entry() instanceof JournalEntry.Sealed s && s.envelope().isPresent())
        .forEach(
            r -> {
              Envelope e = ((JournalEntry.Sealed) r.entry()).envelope().orElseThrow();
              try {
                out.put(r.seq(), Jcr1.open(e));
              } catch (ReceiptException ex) {
                out.put(r.seq(), ex);
              }
            });
    return out;
  }

  /**
   * Holds a granted serve's debit to the receipt the steward signed for it (issue 14 item 6): the
   * journal's lines are only hash-chained, so anyone who can write the file can edit a figure and
   * recompute every {@code prev}, but nobody without the steward's key can sign a receipt. The
   * signed figure is the truth; a {@code Debited} record that says anything else is refused.
   */
  private static void crossCheck(
      long seq, JournalEntry.Sealed s, Object opened, Settled st, Gate gate, Map<Long, ContentId> sealed)
      throws JournalException {
    if (!(opened instanceof SealedReceipt sr)) {
      throw refused(seq, "its envelope does not verify: "
          + (opened instanceof ReceiptException e ? e.getMessage() : "missing"));
    }
    MeshReceipt receipt = sr.receipt();
    JournalEntry.Debited d = st.debit();
    String debit = "the Debited record " + st.debitSeq();
    if (!receipt.steward().equals(gate.holder())) {
      throw refused(seq, "its envelope is sealed by " + receipt.steward() + ", not by the steward "
          + gate.holder());
    }
    if (receipt.sequence() != s.sequence()) {
      throw refused(seq, "its envelope seals receipt " + receipt.sequence() + ", not " + s.sequence());
    }
    if (s.sequence() > 0 && sealed.containsKey(s.sequence() - 1)
        && !receipt.prev().equals(Optional.of(sealed.get(s.sequence() - 1)))) {
      throw refused(seq, "its envelope does not follow receipt " + (s.sequence() - 1) + " (§6.3)");
    }
    if (!receipt.requestId().equals(st.authorisation().requestId())
        || !receipt.grantId().equals(Optional.of(st.authorisation().grantId().contentId()))) {
      throw refused(seq, "its envelope is for request " + receipt.requestId() + " on grant "
          + receipt.grantId().map(ContentId::toString).orElse("(none)")
          + ", not the authorisation it names");
    }
    if (!receipt.energy().equals(d.energy()) || d.debitedUj() != receipt.energy().uj()) {
      throw refused(seq, debit + " debits " + d.debitedUj() + " uJ (" + d.energy() + ") but the"
          + " signed receipt's figure is " + receipt.energy().uj() + " uJ (" + receipt.energy()
          + "); the signed figure is the truth, so the journal was edited");
    }
    if (!receipt.grantBreach().equals(d.breach())) {
      throw refused(seq, debit + " records breach " + d.breach().orElse("(none)")
          + " but the signed receipt says " + receipt.grantBreach().orElse("(none)"));
    }
  }

  private static Authorisation decide(long seq, JournalEntry.Authorised a, Gate gate)
      throws JournalException {
    try {
      return gate.decide(a.presentation(), a.request(), a.model(), a.decidedAt());
    } catch (GrantRefusedException e) {
      throw refused(seq, "the gate refuses the recorded decision: " + e.getMessage());
    }
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }
}
