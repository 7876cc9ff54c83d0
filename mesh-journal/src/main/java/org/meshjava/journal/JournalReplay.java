package org.meshjava.journal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.Authorisation;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantRefusedException;
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
 * receipt out of sequence. Authorisations never debited come back as {@link Unresolved}: they keep
 * their reservation (the request's ceiling), are logged, and are never retried.
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
   */
  public record Result(
      Optional<Sealed> lastSealed,
      Map<Long, ContentId> sealed,
      List<Unresolved> unresolved,
      int authorisations) {
    /** Copies the collections. */
    public Result {
      Objects.requireNonNull(lastSealed, "lastSealed");
      sealed = Map.copyOf(sealed);
      unresolved = List.copyOf(unresolved);
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
    Map<Long, Pending> open = new LinkedHashMap<>();
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
        }
        case JournalEntry.Sealed s -> {
          long expected = last.map(l -> l.sequence() + 1).orElse(s.sequence() == 0 ? 0L : -1L);
          if (s.sequence() != expected) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where receipt "
                + (expected < 0 ? "0" : expected) + " comes next");
          }
          if (s.authorised().isPresent() && open.containsKey(s.authorised().getAsLong())) {
            throw refused(r.seq(), "seals a granted receipt before its debit");
          }
          sealed.put(s.sequence(), s.envelopeId());
          last = Optional.of(new Sealed(s.sequence(), s.envelopeId()));
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
    return new Result(last, sealed, unresolved, authorisations);
  }

  private record Pending(Authorisation authorisation, JournalEntry.Authorised entry) {}

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
