package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.BREACH;
import static org.meshjava.journal.JournalHistory.CALLER;
import static org.meshjava.journal.JournalHistory.CEILING;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.JournalHistory.T0;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.receipt.Envelope;

/**
 * The replay rules of §2.2 and SPEC.md §60.3, record type by record type: what a journal a steward
 * wrote re-establishes, and every record a steward would never have written refused, naming it.
 */
class ReplayStateTest {

  /** Replays every record, one at a time. */
  static ReplayState oneByOne(List<JournalRecord> records, Gate gate) throws JournalException {
    ReplayState s = ReplayState.fresh(gate);
    for (JournalRecord r : records) {
      s.apply(r);
    }
    return s;
  }

  static void assertRefused(List<JournalRecord> records, long seq) {
    // Both paths: the batch (signatures checked in parallel first) and one record at a time.
    assertThatThrownBy(() -> JournalReplay.replay(records, JournalHistory.gate()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.seq()).hasValue(seq);
            });
    assertThatThrownBy(() -> oneByOne(records, JournalHistory.gate()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.seq()).hasValue(seq);
            });
  }

  @Test
  void aWrittenHistory_reestablishesTheSteward() throws Exception {
    JournalHistory h = new JournalHistory();
    long a0 = h.serve(0, 1_000);
    h.sealUngranted(1);
    long a2 = h.serve(2, 6_000); // breaches the leaf's MaxCostUj
    long a3 = h.authorise(3); // in flight when the steward stopped
    h.revoke(T0.plusSeconds(100));
    h.suspend(1, 9);
    h.resume();
    long suspended = h.suspend(0, 8);
    long cp = h.checkpoint();
    List<JournalRecord> records = h.records();

    Gate gate = JournalHistory.gate();
    JournalReplay.Result r = JournalReplay.replay(records, gate);

    Envelope last =
        ((JournalEntry.Sealed) records.get((int) a2 + 2).entry()).envelope().orElseThrow();
    assertThat(r.lastSealed()).contains(new RecordedReceipt(2, last.id()));
    assertThat(r.receipts().first()).isZero();
    assertThat(r.receipts().size()).isEqualTo(3);
    assertThat(r.receipts().get(2)).contains(last.id());
    assertThat(r.authorisations()).isEqualTo(3);
    assertThat(r.revocations()).isEqualTo(1);
    assertThat(r.suspension())
        .contains(
            new Suspension(
                suspended,
                0,
                ((JournalEntry.Suspended) records.get((int) suspended).entry()).envelope().id()));
    JournalEntry.Authorised inFlight = JournalHistory.authorised(3);
    assertThat(r.unresolved())
        .containsExactly(
            new Unresolved(
                a3,
                DidKey.of(CALLER.verificationKey()),
                "backend-3",
                inFlight.request().id(),
                inFlight.presentation().grantId(),
                CEILING,
                inFlight.decidedAt()));

    // The spend is back: every replayed presentation is spent, every debit is on the links, and the
    // serve in flight holds its ceiling.
    GrantId leaf = inFlight.presentation().grantId();
    for (int i : new int[] {0, 2, 3}) {
      assertThat(gate.ledger().isSpent(leaf, JournalHistory.nonce(i))).isTrue();
    }
    assertThat(gate.ledger().isSpent(leaf, JournalHistory.nonce(1))).isFalse();
    assertThat(gate.ledger().spend(leaf).debitedUj()).isEqualTo(7_000);
    assertThat(gate.ledger().spend(leaf).reservedUj()).isEqualTo(CEILING);
    assertThat(gate.revocations().revokedFrom(leaf)).contains(T0.plusSeconds(100));

    ReplayState s = oneByOne(records, JournalHistory.gate());
    assertThat(s.position().count()).isEqualTo(records.size());
    assertThat(s.position().lastHash()).contains(ContentId.ofBytes(h.lines().getLast()));
    assertThat(s.checkpoint())
        .contains(((JournalEntry.Checkpoint) records.get((int) cp).entry()).note());
    assertThat(s.chains()).containsValue(JournalHistory.CHAIN);
    assertThat(s.receipts().size()).isEqualTo(3);
    assertThat(s.unresolved()).hasSize(1);
    assertThat(a0).isEqualTo(1); // the Chain record comes first
  }

  @Test
  void batchAndOneByOne_reachTheSameState() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    h.sealUngranted(1);
    h.serve(2, 2_000);
    h.authorise(3);
    h.debit(h.authorise(4), 700);
    List<JournalRecord> records = h.records();
    ReplayState batch = ReplayState.fresh(JournalHistory.gate());
    batch.applyAll(records.subList(0, 5));
    batch.applyAll(records.subList(5, records.size()));
    ReplayState single = oneByOne(records, JournalHistory.gate());
    assertThat(Snapshot.canonicalBody(STEWARD_ID, batch.capture(-1)))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, single.capture(-1)));
    SnapshotState st = single.capture(77);
    assertThat(st.position().locator()).isEqualTo(77);
    assertThat(st.open()).extracting(SnapshotState.OpenAuthorisation::seq).hasSize(1);
    assertThat(st.settled()).hasSize(1);
    assertThat(st.authorisations()).isEqualTo(4);
  }

  @Test
  void aRecordAppliedOutOfPlace_isRefused() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    ReplayState s = ReplayState.fresh(JournalHistory.gate());
    assertThatThrownBy(() -> s.apply(h.records().get(1)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.seq()).hasValue(1);
            });
  }

  @Test
  void aPresentationRecordedTwice_isRefused() {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    long again = h.append(JournalHistory.authorised(0, T0.plusSeconds(5)));
    assertRefused(h.records(), again);
  }

  /**
   * The batch checks every chain's links in parallel before applying records in order (through the
   * gate, which remembers a chain that passed); the verdicts are the order's: a chain with a forged
   * link, or held by another steward, is refused at its own record, after an authorisation on the
   * genuine chain stood, in the batch as one record at a time.
   */
  @Test
  void aChainThatDoesNotVerify_orIsHeldElsewhere_isRefusedAtItsRecord() throws Exception {
    GrantChain genuine = JournalHistory.CHAIN;
    byte[] signature = genuine.root().signature();
    signature[5] ^= 1;
    GrantChain forgedRoot = GrantChain.of(SignedGrant.of(genuine.root().grant(), signature));
    GrantChain forged = forgedRoot.extend(genuine.leaf());
    GrantChain elsewhere = JournalHistory.chain(CALLER, DidKey.of(OTHER.verificationKey()));
    for (GrantChain refusedChain : List.of(forged, elsewhere)) {
      JournalHistory h = new JournalHistory();
      h.authorise(0);
      ServeRequest request = JournalHistory.request(1);
      Presentation p =
          Presentation.sign(CALLER, refusedChain, request.id(), JournalHistory.nonce(1));
      long refused =
          h.append(
              new JournalEntry.Authorised(
                  p, request, Optional.empty(), "backend-1", T0.plusSeconds(1)));
      assertRefused(h.records(), refused);
    }
  }

  @Test
  void anAuthorisationAfterItsGrantWasRevoked_isRefused_andOneBefore_stands() throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0); // at T0, before the revocation takes effect
    h.revoke(T0.plusSeconds(1));
    assertThat(JournalReplay.replay(h.records(), JournalHistory.gate()).unresolved()).hasSize(1);
    long after = h.authorise(2);
    assertRefused(h.records(), after);
  }

  @Test
  void aRevocationThatDoesNotVerify_isRefused() {
    JournalHistory h = new JournalHistory();
    Revocation good = JournalHistory.revocation(T0);
    long bad =
        h.append(
            new JournalEntry.Revoked(
                Revocation.of(JournalHistory.CHAIN, good.revoker(), good.from(), new byte[64])));
    assertRefused(h.records(), bad);
  }

  @Test
  void aDebitOfNoOpenAuthorisation_isRefused() {
    JournalHistory h = new JournalHistory();
    long a = h.authorise(0);
    h.debit(a, 100);
    long twice = h.debit(a, 100);
    assertRefused(h.records(), twice);

    JournalHistory never = new JournalHistory();
    never.sealUngranted(0);
    long orphan = never.debit(0, 100);
    assertRefused(never.records(), orphan);
  }

  @Test
  void aDebitWhoseBreachDiffersFromTheReplayedOne_isRefused() {
    JournalHistory h = new JournalHistory();
    long a = h.authorise(0);
    long d =
        h.append(new JournalEntry.Debited(a, Energy.estimated(6_000), 6_000, Optional.empty()));
    assertRefused(h.records(), d);

    JournalHistory other = new JournalHistory();
    long b = other.authorise(0);
    long e =
        other.append(new JournalEntry.Debited(b, Energy.estimated(100), 100, Optional.of(BREACH)));
    assertRefused(other.records(), e);
  }

  @Test
  void receiptsOutOfSequence_areRefused() {
    JournalHistory first = new JournalHistory();
    long one = first.append(new JournalEntry.Sealed(1, ContentId.ofBytes(new byte[] {1})));
    assertRefused(first.records(), one);

    JournalHistory gap = new JournalHistory();
    gap.sealUngranted(0);
    long skip = gap.append(new JournalEntry.Sealed(2, ContentId.ofBytes(new byte[] {2})));
    assertRefused(gap.records(), skip);

    JournalHistory again = new JournalHistory();
    again.sealUngranted(0);
    long repeat = again.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {3})));
    assertRefused(again.records(), repeat);
  }

  @Test
  void aGrantedReceiptBeforeItsDebit_isRefused() {
    JournalHistory h = new JournalHistory();
    long a = h.authorise(0);
    long s = h.sealGranted(a, 0, 100);
    assertRefused(h.records(), s);
  }

  @Test
  void aGrantedReceiptNamingNoDebitedAuthorisation_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long s = h.sealGranted(0, 1, 100); // record 0 is a Sealed record
    assertRefused(h.records(), s);

    JournalHistory twice = new JournalHistory();
    long a = twice.serve(0, 100);
    long again = twice.sealGranted(a, 0, 100);
    assertRefused(twice.records(), again);
  }

  /** A granted serve whose receipt is {@code receipt} (built at the receipt's right place). */
  static long tamperedServe(
      JournalHistory h,
      long uj,
      java.util.function.UnaryOperator<org.meshjava.receipt.MeshReceipt.Builder> edit) {
    long a = h.authorise(0);
    h.debit(a, uj);
    return h.sealGranted(a, JournalHistory.seal(edit.apply(h.receipt(0, uj)), STEWARD));
  }

  @Test
  void aGrantedReceiptThatDisagreesWithItsDebit_isRefused() {
    // each edit makes the signed receipt say something the journal's records do not
    List<java.util.function.UnaryOperator<org.meshjava.receipt.MeshReceipt.Builder>> edits =
        new ArrayList<>();
    edits.add(b -> b.energy(Energy.estimated(999)));
    edits.add(b -> b.energy(Energy.measured(1_000, 1_000)));
    edits.add(b -> b.grantBreach(Optional.of(org.meshjava.core.DenialLabel.fromWire(BREACH))));
    edits.add(b -> b.requestId(ContentId.ofBytes(new byte[] {42})));
    edits.add(b -> b.grantId(Optional.of(ContentId.ofBytes(new byte[] {43}))));
    edits.add(b -> b.grantId(Optional.empty()));
    edits.add(b -> b.chain(1, Optional.of(ContentId.ofBytes(new byte[] {44}))));
    for (var edit : edits) {
      JournalHistory h = new JournalHistory();
      long s = tamperedServe(h, 1_000, edit);
      assertRefused(h.records(), s);
    }
  }

  @Test
  void aDebitedFigureThatIsNotTheReceiptsFigure_isRefused() {
    JournalHistory h = new JournalHistory();
    long a = h.authorise(0);
    h.append(new JournalEntry.Debited(a, Energy.estimated(1_000), 900, Optional.empty()));
    long s = h.sealGranted(a, 0, 1_000);
    assertRefused(h.records(), s);
  }

  @Test
  void aGrantedReceiptSealedByAnotherKey_orNotVerifying_isRefused() {
    JournalHistory named = new JournalHistory();
    long a2 = named.authorise(0);
    named.debit(a2, 1_000);
    long s2 =
        named.sealGranted(
            a2,
            JournalHistory.seal(
                named.receipt(0, 1_000).steward(DidKey.of(OTHER.verificationKey())), OTHER));
    assertRefused(named.records(), s2);

    JournalHistory garbage = new JournalHistory();
    long b = garbage.authorise(0);
    garbage.debit(b, 1_000);
    long s3 = garbage.sealGranted(b, Envelope.of(new byte[] {1, 2, 3}));
    assertRefused(garbage.records(), s3);
  }

  @Test
  void aGrantedReceiptThatDoesNotFollowThePreviousOne_isRefused() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long s =
        tamperedServe(h, 1_000, b -> b.chain(1, Optional.of(ContentId.ofBytes(new byte[] {7}))));
    assertRefused(h.records(), s);
  }

  /**
   * {@code mesh journal verify} replays the journal streamed: a replay that kept every receipt's id
   * (32 bytes each) grew with the journal and ran it out of heap. Without ids it keeps their count
   * and the last receipt only, and still holds each granted receipt to the one before it.
   */
  @Test
  void aReplayWithoutIds_holdsNoReceiptId_countsThem_andStillChecksTheirChain() throws Exception {
    JournalHistory h = new JournalHistory();
    // Presentation 0 is left for the tampered serve below.
    for (int i = 1; i <= 20; i++) {
      if (i % 2 == 0) {
        h.serve(i, 100);
      } else {
        h.sealUngranted(i);
      }
    }
    ReplayState without = ReplayState.freshWithoutIds(JournalHistory.gate());
    without.applyAll(h.records());
    JournalReplay.Result r = without.result();
    assertThat(without.receipts().size()).as("ids held").isZero();
    assertThat(r.receipts().size()).isZero();
    assertThat(r.receiptsRecorded()).isEqualTo(20);
    JournalReplay.Result whole = JournalReplay.replay(h.records(), JournalHistory.gate());
    assertThat(whole.receiptsRecorded()).isEqualTo(whole.receipts().size()).isEqualTo(20);
    assertThat(r.lastSealed()).isEqualTo(whole.lastSealed());
    assertThatThrownBy(() -> without.capture(-1)).isInstanceOf(UnsupportedOperationException.class);

    long s =
        tamperedServe(h, 1_000, b -> b.chain(20, Optional.of(ContentId.ofBytes(new byte[] {7}))));
    ReplayState again = ReplayState.freshWithoutIds(JournalHistory.gate());
    assertThatThrownBy(() -> again.applyAll(h.records()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.seq()).hasValue(s);
              assertThat(e.getMessage()).contains("does not follow receipt 19");
            });
  }

  /**
   * A replay that forgets its ids part way (verify, once past the snapshot it compares, or from a
   * restored snapshot) holds none from then on and still counts every receipt. Regression: verify
   * of an archived journal kept every receipt's id, its memory growing with the journal.
   */
  @Test
  void aReplayThatForgetsItsIds_holdsNoneFromThenOn_andCountsThem() throws Exception {
    JournalHistory h = new JournalHistory();
    for (int i = 0; i < 20; i++) {
      h.sealUngranted(i);
    }
    ReplayState state = ReplayState.fresh(JournalHistory.gate());
    state.applyAll(h.records().subList(0, 10));
    assertThat(state.receipts().size()).isEqualTo(10);
    state.forgetReceiptIds();
    state.applyAll(h.records().subList(10, 20));
    assertThat(state.receipts().size()).as("ids held").isZero();
    assertThat(state.result().receiptsRecorded()).isEqualTo(20);
    assertThatThrownBy(() -> state.capture(-1)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aResumptionWithNoSuspension_isRefused() {
    JournalHistory h = new JournalHistory();
    long r = h.resume();
    assertRefused(h.records(), r);

    JournalHistory twice = new JournalHistory();
    twice.suspend(0, 1);
    twice.resume();
    long again = twice.resume();
    assertRefused(twice.records(), again);
  }

  @Test
  void aSuspensionOnACheckpoint_isInForceAfterReplay_untilResumed() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    long s = h.suspendOnCheckpoint(2);
    JournalReplay.Result r = JournalReplay.replay(h.records(), JournalHistory.gate());
    assertThat(r.suspension())
        .hasValueSatisfying(
            x -> {
              assertThat(x.record()).isEqualTo(s);
              assertThat(x.evidence())
                  .isEqualTo(
                      new Suspension.Evidence.ShownCheckpoint(
                          ((JournalEntry.SuspendedByCheckpoint) h.records().get((int) s).entry())
                              .checkpoint()));
              assertThat(x.toString()).contains("size 3").contains("resume-grants");
            });
    assertThat(oneByOne(h.records(), JournalHistory.gate()).capture(-1).suspension())
        .isEqualTo(r.suspension());
    h.resume();
    assertThat(JournalReplay.replay(h.records(), JournalHistory.gate()).suspension()).isEmpty();
  }

  @Test
  void aSuspensionOnACheckpointNotSignedByThisStewardsLogKey_isRefused() {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    long s = h.append(new JournalEntry.SuspendedByCheckpoint(h.checkpointAhead(OTHER, 1)));
    assertRefused(h.records(), s);
  }

  @Test
  void aSuspensionWhoseEvidenceIsNotThisStewardsReceipt_isRefused() {
    JournalHistory other = new JournalHistory();
    long s =
        other.append(
            new JournalEntry.Suspended(
                0,
                JournalHistory.seal(
                    other.receipt(0, 100).steward(DidKey.of(OTHER.verificationKey())), OTHER)));
    assertRefused(other.records(), s);

    JournalHistory wrongSeq = new JournalHistory();
    long w =
        wrongSeq.append(
            new JournalEntry.Suspended(3, JournalHistory.seal(wrongSeq.receipt(0, 100), STEWARD)));
    assertRefused(wrongSeq.records(), w);

    JournalHistory garbage = new JournalHistory();
    long g =
        garbage.append(new JournalEntry.Suspended(0, Envelope.of(new byte[] {(byte) 0xd2, 0})));
    assertRefused(garbage.records(), g);
  }

  @Test
  void aReplayRestoredFromItsCapture_endsWhereTheFullReplayEnds() throws Exception {
    JournalHistory h = new JournalHistory();
    long a0 = h.authorise(0);
    h.serve(1, 1_000);
    h.revoke(T0.plusSeconds(1_000));
    long a2 = h.authorise(2);
    h.debit(a2, 6_000);
    h.suspend(1, 3);
    h.checkpoint();
    int cut = h.records().size();
    h.debit(a0, 200);
    h.sealGranted(a2, 2, 6_000);
    h.sealGranted(a0, 0, 200);
    h.serve(4, 300);
    List<JournalRecord> records = h.records();

    ReplayState prefix = oneByOne(records.subList(0, cut), JournalHistory.gate());
    SnapshotState captured = prefix.capture(-1);
    assertThat(captured.open()).hasSize(1);
    assertThat(captured.settled()).hasSize(1);
    Snapshot snap = Snapshot.open(Snapshot.sign(STEWARD, captured).encoded(), STEWARD_ID);
    ReplayState resumed = ReplayState.restore(snap.state(), snap.gate(Revocations.none()));
    resumed.applyAll(records.subList(cut, records.size()));

    ReplayState full = oneByOne(records, JournalHistory.gate());
    assertThat(Snapshot.canonicalBody(STEWARD_ID, resumed.capture(-1)))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, full.capture(-1)));
    assertThat(resumed.result().lastSealed()).isEqualTo(full.result().lastSealed());
    assertThat(resumed.result().authorisations()).isEqualTo(4);
    assertThat(resumed.result().revocations()).isEqualTo(1);
    assertThat(resumed.result().suspension()).isPresent();
    assertThat(resumed.checkpoint()).isPresent();
    assertThat(
            resumed
                .gate()
                .ledger()
                .spend(JournalHistory.authorised(0).presentation().grantId())
                .debitedUj())
        .isEqualTo(1_000 + 6_000 + 200 + 300);
  }

  @Test
  void aCaptureWhoseOpenAuthorisationHoldsNoReservation_isNotRestored() throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0);
    SnapshotState s = oneByOne(h.records(), JournalHistory.gate()).capture(-1);
    SnapshotState noReservation =
        new SnapshotState(
            s.position(),
            JournalHistory.gate().ledger().state(),
            s.revocations(),
            s.suspension(),
            s.lastSealed(),
            s.receipts(),
            s.open(),
            s.settled(),
            s.checkpoint(),
            s.chains(),
            s.authorisations(),
            s.revocationsReplayed());
    Gate gate =
        Gate.create(STEWARD_ID, SpendLedger.restore(noReservation.ledger()), Revocations.none());
    assertThatThrownBy(() -> ReplayState.restore(noReservation, gate))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void settledDebits_areCapturedInAuthorisationOrder() throws Exception {
    JournalHistory h = new JournalHistory();
    long first = h.authorise(0);
    // Pad so the second authorisation's sequence falls in the first one's hash bucket, where a
    // hash map would list it first.
    int i = 0;
    while ((h.records().size() - first) % 16 != 0) {
      h.sealUngranted(100 + i++);
    }
    long second = h.authorise(1);
    h.debit(second, 100);
    h.debit(first, 100);
    SnapshotState s = oneByOne(h.records(), JournalHistory.gate()).capture(-1);
    assertThat(s.settled())
        .extracting(SnapshotState.SettledDebit::authorised)
        .containsExactly(first, second);
    assertThat(s.settled().get(0).debitSeq()).isEqualTo(second + 2);
    assertThat(s.settled().get(0).debit()).isEqualTo(JournalHistory.debited(first, 100));
    assertThat(s.settled().get(0).requestId()).isEqualTo(JournalHistory.request(0).id());
    assertThat(s.open()).isEmpty();
  }
}
