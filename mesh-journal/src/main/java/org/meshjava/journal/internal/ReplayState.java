package org.meshjava.journal.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.jcp.Authorisation;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.Reservation;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.journal.RecordedReceipt;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.Suspension;
import org.meshjava.journal.Unresolved;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A journal replay in progress (§2.2, see {@link JournalReplay} for the rules): records are applied
 * one at a time, or a batch at a time so their signatures are checked in parallel first, and only
 * the state they build is kept, never the records. It starts empty ({@link #fresh}) or from a
 * snapshot's state ({@link #restore}), and can be captured at any record boundary ({@link
 * #capture}) for the next snapshot. Replaying from a snapshot and then the records after it reaches
 * exactly the state that replaying every record reaches, because the snapshot is that state.
 *
 * <p>Not thread-safe: one replay, one thread.
 */
public final class ReplayState {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayState.class);

  private final Gate gate;
  private final Map<ContentId, GrantChain> chains;
  private final RecordedChains recorded;
  private final Map<Long, Pending> open = new LinkedHashMap<>();
  private final Map<Long, Settled> settled = new HashMap<>();
  private ReceiptIds receipts;

  /** Whether {@link #receipts} is kept; a check that needs no ids keeps only their count. */
  private boolean keepIds;

  private long receiptsRecorded;

  // Where the replay has got to; a fresh replay starts here, a restored one from its snapshot.
  private Optional<RecordedReceipt> last = Optional.empty();
  private Optional<Suspension> suspension = Optional.empty();
  private Optional<SignedNote> checkpoint = Optional.empty();
  private long authorisations;
  private long revocations;
  private JournalPosition position = JournalPosition.GENESIS;

  private ReplayState(
      Gate gate, Map<ContentId, GrantChain> chains, ReceiptIds receipts, boolean keepIds) {
    this.gate = gate;
    this.chains = chains;
    this.recorded = new RecordedChains(chains);
    this.receipts = receipts;
    this.keepIds = keepIds;
    this.receiptsRecorded = receipts.size();
  }

  /** A replay from the journal's first record into {@code gate}, whose ledger must be empty. */
  public static ReplayState fresh(Gate gate) {
    return new ReplayState(gate, new LinkedHashMap<>(), new ReceiptIds(), true);
  }

  /**
   * As {@link #fresh}, for a check of the journal that needs no receipt's id once it has passed
   * ({@code mesh journal verify}): the ids are not kept (32 bytes a receipt a start keeps for its
   * witness index), only their count, so {@link JournalReplay.Result#receipts()} is empty, {@link
   * JournalReplay.Result#receiptsRecorded()} counts them, and the state cannot be captured.
   */
  public static ReplayState freshWithoutIds(Gate gate) {
    return new ReplayState(gate, new LinkedHashMap<>(), new ReceiptIds(), false);
  }

  /**
   * A replay that continues from {@code state}, into {@code gate}, whose ledger must hold {@code
   * state.ledger()} and whose revocations must include {@code state.revocations()} ({@link
   * Snapshot#gate} builds such a gate).
   *
   * @throws IllegalArgumentException if an open authorisation's reservation is not in the ledger
   */
  public static ReplayState restore(SnapshotState state, Gate gate) {
    Map<ContentId, GrantChain> chains = new LinkedHashMap<>();
    for (GrantChain c : state.chains()) {
      chains.put(ContentId.ofBytes(c.encode()), c);
    }
    ReplayState r = new ReplayState(gate, chains, state.receipts().copy(), true);
    // A snapshot may hold chains past its ledger's horizon (one an earlier build wrote holds
    // every chain); drop the expired ones.
    r.recorded.decided(state.ledger().horizon());
    r.last = state.lastSealed();
    r.suspension = state.suspension();
    r.checkpoint = state.checkpoint();
    r.authorisations = state.authorisations();
    r.revocations = state.revocationsReplayed();
    r.position = state.position();
    Map<Long, Reservation> reservations = new HashMap<>();
    for (Reservation res : state.ledger().open()) {
      reservations.put(res.serial(), res);
    }
    for (SnapshotState.OpenAuthorisation o : state.open()) {
      Reservation res = reservations.get(o.reservation());
      if (res == null) {
        throw new IllegalArgumentException(
            "authorisation " + o.seq() + " holds reservation " + o.reservation() + ", not open");
      }
      JournalEntry.Authorised a = o.entry();
      Authorisation auth =
          gate.resume(a.presentation(), a.identified(), a.model(), a.decidedAt(), res);
      r.open.put(o.seq(), new Pending(auth, a));
    }
    for (SnapshotState.SettledDebit s : state.settled()) {
      r.settled.put(
          s.authorised(), new Settled(s.requestId(), s.grantId(), s.debitSeq(), s.debit()));
    }
    return r;
  }

  /**
   * Lets go of the receipt ids held and keeps none from now on, as {@link #freshWithoutIds} keeps
   * none: for a check that needs them no further ({@code mesh journal verify}, once past what it
   * compares with a snapshot, or from a snapshot's restored state). {@link
   * JournalReplay.Result#receiptsRecorded()} goes on counting every receipt; the state can no
   * longer be captured.
   */
  public void forgetReceiptIds() {
    keepIds = false;
    receipts = new ReceiptIds();
  }

  /** The grant chains recorded so far, by id; {@link Journal#read} decodes with it. */
  public Map<ContentId, GrantChain> chains() {
    return chains;
  }

  /** The gate replayed into. */
  public Gate gate() {
    return gate;
  }

  /** The position after the last record applied. */
  public JournalPosition position() {
    return position;
  }

  /**
   * The receipts recorded so far; none for a replay {@link #freshWithoutIds}, or since {@link
   * #forgetReceiptIds}.
   */
  public ReceiptIds receipts() {
    return receipts;
  }

  /**
   * Reads the receipt ids from {@code saved} from now on, in place of the ones this replay holds:
   * for a replay that has just written them into a snapshot its store mapped back (SPEC.md §60.9),
   * so that the heap keeps only the ids added after it. {@code saved} is taken over (ids are added
   * to it) and its bytes must never change. Nothing changes unless it holds as many ids, from the
   * same first receipt, ending in the same id.
   *
   * @return whether the ids were taken
   */
  public boolean adoptReceipts(ReceiptIds saved) {
    if (!keepIds) {
      return false;
    }
    long n = receipts.size();
    if (saved.first() != receipts.first()
        || saved.size() != n
        || (n > 0
            && !saved.get(saved.first() + n - 1).equals(receipts.get(receipts.first() + n - 1)))) {
      return false;
    }
    receipts = saved;
    return true;
  }

  /**
   * Applies {@code batch}, in order, after checking its signatures in parallel (they dominate a
   * replay and do not depend on order; a failure is found again, in order, and names the record):
   * each authorisation's caller, and its chain's links through the gate ({@link
   * Gate#verifyPresentation}, which remembers a chain that passed, so the decision in order finds
   * it checked). A chain's links were verified in order, one chain after another, which cost a
   * journal whose serves each present a chain of their own (a delegation narrowed to one request,
   * say) a signature check a link on one thread.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the first record that cannot be replayed
   */
  public void applyAll(List<JournalRecord> batch) throws JournalException {
    batch.parallelStream()
        .filter(r -> r.entry() instanceof JournalEntry.Authorised)
        .forEach(
            r -> {
              JournalEntry.Authorised a = (JournalEntry.Authorised) r.entry();
              try {
                gate.verifyPresentation(a.presentation(), a.identified().id());
              } catch (GrantRefusedException ignored) {
                // Refused again, in order, by the gate.
              }
            });
    Map<Long, Object> envelopes = new ConcurrentHashMap<>();
    batch.parallelStream()
        .filter(r -> r.entry() instanceof JournalEntry.Sealed s && s.envelope().isPresent())
        .forEach(
            r -> {
              Envelope e = ((JournalEntry.Sealed) r.entry()).envelope().orElseThrow();
              try {
                envelopes.put(r.seq(), Jcr1.open(e));
              } catch (ReceiptException ex) {
                envelopes.put(r.seq(), ex);
              }
            });
    for (JournalRecord r : batch) {
      apply(r, envelopes.get(r.seq()));
    }
  }

  /**
   * Applies one record.
   *
   * @throws JournalException {@code REPLAY_REFUSED} if it cannot be replayed
   */
  public void apply(JournalRecord r) throws JournalException {
    apply(r, null);
  }

  private void apply(JournalRecord r, @Nullable Object opened) throws JournalException {
    if (r.seq() != position.count()) {
      throw refused(r.seq(), "applied where record " + position.count() + " comes next");
    }
    switch (r.entry()) {
      case JournalEntry.Chain c -> recorded.put(c.id(), c.chain());
      case JournalEntry.Authorised a -> {
        open.put(r.seq(), new Pending(decide(r.seq(), a), a));
        authorisations++;
        recorded.decided(a.decidedAt());
      }
      case JournalEntry.Debited d -> {
        Pending p = open.remove(d.authorised());
        if (p == null) {
          throw refused(
              r.seq(),
              "debits authorisation "
                  + d.authorised()
                  + ", which is not an open authorisation in this journal");
        }
        DebitResult result = gate.debit(p.authorisation(), d.debitedUj());
        Optional<String> breach = result.breach().map(l -> l.wire());
        if (!breach.equals(d.breach())) {
          throw refused(
              r.seq(),
              "records breach "
                  + d.breach().orElse("(none)")
                  + " but the replayed debit gives "
                  + breach.orElse("(none)"));
        }
        Authorisation auth = p.authorisation();
        settled.put(d.authorised(), new Settled(auth.requestId(), auth.grantId(), r.seq(), d));
      }
      case JournalEntry.Sealed s -> sealed(r.seq(), s, opened);
      case JournalEntry.Suspended x -> suspension = Optional.of(suspended(r.seq(), x));
      case JournalEntry.SuspendedByCheckpoint x -> suspension = Optional.of(suspended(r.seq(), x));
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
      case JournalEntry.Checkpoint x ->
          // Checked by the steward against the tree it rebuilds from the receipts (§65).
          checkpoint = Optional.of(x.note());
    }
    position =
        new JournalPosition(r.seq() + 1, Optional.of(ContentId.ofBytes(RecordCodec.encode(r))), -1);
  }

  private void sealed(long seq, JournalEntry.Sealed s, @Nullable Object opened)
      throws JournalException {
    long expected = last.map(l -> l.sequence() + 1).orElse(s.sequence() == 0 ? 0L : -1L);
    if (s.sequence() != expected) {
      throw refused(
          seq,
          "records receipt "
              + s.sequence()
              + " where receipt "
              + (expected < 0 ? "0" : expected)
              + " comes next");
    }
    if (s.authorised().isPresent()) {
      long k = s.authorised().getAsLong();
      if (open.containsKey(k)) {
        throw refused(seq, "seals a granted receipt before its debit");
      }
      Settled st = settled.remove(k);
      if (st == null) {
        throw refused(
            seq,
            "names authorisation "
                + k
                + ", which is no debited, unsealed authorisation in this journal");
      }
      Object envelope = opened;
      if (envelope == null) {
        try {
          envelope = Jcr1.open(s.envelope().orElseThrow());
        } catch (ReceiptException e) {
          envelope = e;
        }
      }
      crossCheck(seq, s, envelope, st);
    }
    if (keepIds) {
      receipts.add(s.sequence(), s.envelopeId());
    }
    receiptsRecorded++;
    last = Optional.of(new RecordedReceipt(s.sequence(), s.envelopeId()));
  }

  /**
   * What replay re-established so far; logs the unresolved serves and a suspension in force, as a
   * restart reports them.
   */
  public JournalReplay.Result result() {
    List<Unresolved> unresolved = unresolved();
    for (Unresolved u : unresolved) {
      LOG.warn("{}; it stays debited at its ceiling and is not retried", u);
    }
    suspension.ifPresent(x -> LOG.error("grants stay suspended: {}", x));
    return new JournalReplay.Result(
        last,
        receipts,
        receiptsRecorded,
        unresolved,
        (int) Math.min(Integer.MAX_VALUE, authorisations),
        suspension,
        (int) Math.min(Integer.MAX_VALUE, revocations));
  }

  /** The authorisations never debited so far, in record order. */
  public List<Unresolved> unresolved() {
    List<Unresolved> out = new ArrayList<>();
    for (Map.Entry<Long, Pending> e : open.entrySet()) {
      Authorisation auth = e.getValue().authorisation();
      out.add(
          new Unresolved(
              e.getKey(),
              auth.presentation().caller(),
              e.getValue().entry().backend(),
              auth.requestId(),
              auth.grantId(),
              auth.ceilingUj(),
              auth.decisionTime()));
    }
    return out;
  }

  /** The last checkpoint recorded so far. */
  public Optional<SignedNote> checkpoint() {
    return checkpoint;
  }

  /**
   * The state as it stands, for a snapshot at {@link #position()}, with the journal's own {@code
   * locator} for that position (-1 if unknown).
   *
   * @throws UnsupportedOperationException if the gate's ledger cannot be captured, or the replay
   *     keeps no receipt ids ({@link #freshWithoutIds})
   */
  public SnapshotState capture(long locator) {
    if (!keepIds) {
      throw new UnsupportedOperationException("a replay without its receipts' ids is not captured");
    }
    List<SnapshotState.OpenAuthorisation> o = new ArrayList<>();
    open.forEach(
        (seq, p) ->
            o.add(
                new SnapshotState.OpenAuthorisation(
                    seq, p.entry(), p.authorisation().reservation().serial())));
    List<SnapshotState.SettledDebit> s = new ArrayList<>();
    settled.forEach(
        (k, st) ->
            s.add(
                new SnapshotState.SettledDebit(
                    k, st.debitSeq(), st.requestId(), st.grantId(), st.debit())));
    s.sort((x, y) -> Long.compare(x.authorised(), y.authorised()));
    return new SnapshotState(
        new JournalPosition(position.count(), position.lastHash(), locator),
        gate.ledger().state(),
        gate.revocations().all(),
        suspension,
        last,
        receipts.copy(),
        o,
        s,
        checkpoint,
        List.copyOf(chains.values()),
        authorisations,
        revocations);
  }

  private record Pending(Authorisation authorisation, JournalEntry.Authorised entry) {}

  /** A debited authorisation waiting for its {@code Sealed} record. */
  private record Settled(
      ContentId requestId, GrantId grantId, long debitSeq, JournalEntry.Debited debit) {}

  /** An energy figure in words, for a refusal an operator reads. */
  private static String described(org.meshjava.core.Energy e) {
    return (e.measuredUj().isPresent() ? "measured " + e.measuredUj().getAsLong() + " uJ, " : "")
        + "estimated "
        + e.estimatedUj()
        + " uJ, "
        + e.provenance();
  }

  /** A recorded suspension, checked: its evidence is a receipt this steward sealed. */
  private Suspension suspended(long seq, JournalEntry.Suspended x) throws JournalException {
    SealedReceipt shown;
    try {
      shown = Jcr1.open(x.envelope());
    } catch (ReceiptException e) {
      throw refused(seq, "records a suspension whose evidence does not verify: " + e.getMessage());
    }
    if (!shown.receipt().steward().equals(gate.holder())
        || shown.receipt().sequence() != x.sequence()) {
      throw refused(
          seq,
          "records a suspension whose evidence is not receipt "
              + x.sequence()
              + " of the steward "
              + gate.holder());
    }
    return new Suspension(seq, x.sequence(), x.envelope().id());
  }

  /** A recorded suspension, checked: its evidence is a checkpoint this steward's log key signed. */
  private Suspension suspended(long seq, JournalEntry.SuspendedByCheckpoint x)
      throws JournalException {
    try {
      Checkpoint.open(x.checkpoint(), Checkpoint.logKey(gate.holder()));
    } catch (LogException e) {
      throw refused(
          seq,
          "records a suspension whose evidence is not a checkpoint of the steward "
              + gate.holder()
              + ": "
              + e.getMessage());
    }
    return new Suspension(seq, new Suspension.Evidence.ShownCheckpoint(x.checkpoint()));
  }

  /**
   * Holds a granted serve's debit to the receipt the steward signed for it (issue 14 item 6): the
   * journal's lines are only hash-chained, so anyone who can write the file can edit a figure and
   * recompute every {@code prev}, but nobody without the steward's key can sign a receipt. The
   * signed figure is the truth; a {@code Debited} record that says anything else is refused.
   */
  private void crossCheck(long seq, JournalEntry.Sealed s, Object opened, Settled st)
      throws JournalException {
    if (!(opened instanceof SealedReceipt sr)) {
      throw refused(
          seq,
          "its envelope does not verify: "
              + (opened instanceof ReceiptException e ? e.getMessage() : "missing"));
    }
    MeshReceipt receipt = sr.receipt();
    JournalEntry.Debited d = st.debit();
    String debit = "the Debited record " + st.debitSeq();
    if (!receipt.steward().equals(gate.holder())) {
      throw refused(
          seq,
          "its envelope is sealed by "
              + receipt.steward()
              + ", not by the steward "
              + gate.holder());
    }
    if (receipt.sequence() != s.sequence()) {
      throw refused(
          seq, "its envelope seals receipt " + receipt.sequence() + ", not " + s.sequence());
    }
    // The receipt before it is the last one recorded (the sequence was checked to follow it).
    Optional<ContentId> previous = last.map(RecordedReceipt::envelopeId);
    if (s.sequence() > 0 && previous.isPresent() && !receipt.prev().equals(previous)) {
      throw refused(seq, "its envelope does not follow receipt " + (s.sequence() - 1) + " (§6.3)");
    }
    if (!receipt.requestId().equals(st.requestId())
        || !receipt.grantId().equals(Optional.of(st.grantId().contentId()))) {
      throw refused(
          seq,
          "its envelope is for request "
              + receipt.requestId()
              + " on grant "
              + receipt.grantId().map(ContentId::toString).orElse("(none)")
              + ", not the authorisation it names");
    }
    if (!receipt.energy().equals(d.energy()) || d.debitedUj() != receipt.energy().uj()) {
      throw refused(
          seq,
          debit
              + " debits "
              + d.debitedUj()
              + " uJ ("
              + described(d.energy())
              + ") but the"
              + " signed receipt's figure is "
              + receipt.energy().uj()
              + " uJ ("
              + described(receipt.energy())
              + "); the signed figure is the truth, so the journal was edited");
    }
    if (!receipt.grantBreach().map(DenialLabel::wire).equals(d.breach())) {
      throw refused(
          seq,
          debit
              + " records breach "
              + d.breach().orElse("(none)")
              + " but the signed receipt says "
              + receipt.grantBreach().map(DenialLabel::wire).orElse("(none)"));
    }
  }

  private Authorisation decide(long seq, JournalEntry.Authorised a) throws JournalException {
    try {
      return gate.decide(a.presentation(), a.identified(), a.model(), a.decidedAt());
    } catch (GrantRefusedException e) {
      throw refused(seq, "the gate refuses the recorded decision: " + e.getMessage());
    }
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }
}
