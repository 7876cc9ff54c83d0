package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.JournalHistory.T0;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.Revocations;
import org.meshjava.journal.internal.ReplayState;

/**
 * The signed snapshot of SPEC.md §60.8: a state survives signing and opening exactly, and every
 * snapshot that is not this steward's exact encoding is refused with its reason, even when it is
 * correctly signed.
 */
class SnapshotTest {
  /** What the signature covers before the body (SPEC.md §60.8). */
  static final byte[] CONTEXT = "mesh/1 journal snapshot\n".getBytes(StandardCharsets.UTF_8);

  /**
   * A state with every part present: an open authorisation, debits with and without a measured
   * figure and a breach, a revocation, a suspension, a checkpoint, spent nonces and reservations.
   */
  static SnapshotState richState() throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0);
    h.serve(1, 1_000);
    h.revoke(T0.plusSeconds(1_000));
    long a2 = h.authorise(2);
    h.append(
        new JournalEntry.Debited(
            a2, Energy.measured(6_000, 5_500), 6_000, Optional.of(JournalHistory.BREACH)));
    h.debit(h.authorise(3), 100);
    h.suspend(1, 9);
    h.checkpoint();
    return ReplayStateTest.oneByOne(h.records(), JournalHistory.gate()).capture(1234);
  }

  static CborMap body(byte[] snapshot) throws Exception {
    CborArray outer = (CborArray) CanonicalCbor.decode(snapshot);
    return (CborMap) CanonicalCbor.decode(((CborBytes) outer.items().get(0)).bytes());
  }

  /** {@code body} signed by the steward, as a snapshot file. */
  static byte[] signed(CborMap body) {
    byte[] b = body.encode();
    return CborArray.of(CborBytes.of(b), CborBytes.of(STEWARD.sign(message(b)))).encode();
  }

  /**
   * What a snapshot's signature covers: the context, then the body, or the body's SHA-256 (later
   * formats sign the digest); which one is read off a snapshot this implementation signed.
   */
  static byte[] message(byte[] body) {
    byte[] plain = concat(CONTEXT, body);
    try {
      CborArray outer =
          (CborArray)
              CanonicalCbor.decode(
                  Snapshot.sign(STEWARD, ReplayState.fresh(JournalHistory.gate()).capture(-1))
                      .encoded());
      byte[] b = ((CborBytes) outer.items().get(0)).bytes();
      byte[] sig = ((CborBytes) outer.items().get(1)).bytes();
      if (Arrays.equals(sig, STEWARD.sign(concat(CONTEXT, b)))) {
        return plain;
      }
      return concat(CONTEXT, java.security.MessageDigest.getInstance("SHA-256").digest(body));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** {@code body} with {@code key} set to {@code value} (removed when null). */
  static CborMap with(
      CborMap body, String key, @org.jspecify.annotations.Nullable CborValue value) {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : body.entries()) {
      if (e.key() instanceof CborText t && t.value().equals(key)) {
        continue;
      }
      b.put(e.key(), e.value());
    }
    if (value != null) {
      b.put(key, value);
    }
    return b.build();
  }

  static CborArray set(CborValue array, int i, CborValue value) {
    List<CborValue> items = new ArrayList<>(((CborArray) array).items());
    items.set(i, value);
    return new CborArray(items);
  }

  static CborValue get(CborMap body, String key) {
    return body.get(key).orElseThrow();
  }

  static CborArray t(long seconds, long nanos) {
    return CborArray.of(CborInt.of(seconds), CborInt.of(nanos));
  }

  static void assertRefused(byte[] snapshot, SnapshotException.Reason reason) {
    assertThatThrownBy(() -> Snapshot.open(snapshot, STEWARD_ID))
        .isInstanceOfSatisfying(
            SnapshotException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  static void assertMalformed(UnaryOperator<CborMap> edit) throws Exception {
    CborMap good = body(Snapshot.sign(STEWARD, richState()).encoded());
    assertRefused(signed(edit.apply(good)), SnapshotException.Reason.MALFORMED);
  }

  @Test
  void aSignedState_opensToExactlyThatState() throws Exception {
    SnapshotState state = richState();
    Snapshot s = Snapshot.sign(STEWARD, state);
    Snapshot opened = Snapshot.open(s.encoded(), STEWARD_ID);
    SnapshotState back = opened.state();
    assertThat(Snapshot.canonicalBody(STEWARD_ID, back))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, state));
    assertThat(opened.position()).isEqualTo(state.position());
    assertThat(opened.position().locator()).isEqualTo(1234);
    assertThat(opened.steward()).isEqualTo(STEWARD_ID);
    assertThat(opened.encoded()).isEqualTo(s.encoded());
    assertThat(back.ledger()).isEqualTo(state.ledger());
    assertThat(back.ledger().spent()).hasSize(4);
    assertThat(back.ledger().open()).hasSize(1);
    assertThat(back.revocations()).isEqualTo(state.revocations()).hasSize(1);
    assertThat(back.suspension()).isEqualTo(state.suspension()).isPresent();
    assertThat(back.lastSealed()).isEqualTo(state.lastSealed()).isPresent();
    assertThat(back.receipts().packed()).isEqualTo(state.receipts().packed());
    assertThat(back.receipts().first()).isZero();
    assertThat(back.open()).isEqualTo(state.open()).hasSize(1);
    assertThat(back.settled()).isEqualTo(state.settled()).hasSize(2);
    assertThat(back.settled().get(0).debit().energy().measuredUj()).hasValue(6_000);
    assertThat(back.settled().get(0).debit().breach()).contains(JournalHistory.BREACH);
    assertThat(back.settled().get(1).debit().energy().measuredUj()).isEmpty();
    assertThat(back.settled().get(1).debit().breach()).isEmpty();
    assertThat(back.checkpoint()).isEqualTo(state.checkpoint()).isPresent();
    assertThat(back.chains()).containsExactly(JournalHistory.CHAIN);
    assertThat(back.authorisations()).isEqualTo(4);
    assertThat(back.revocationsReplayed()).isEqualTo(1);

    // The encoding handed out is a copy.
    s.encoded()[0] ^= 1;
    assertThat(Snapshot.open(s.encoded(), STEWARD_ID).state().position())
        .isEqualTo(state.position());
  }

  @Test
  void aSuspensionOnACheckpoint_opensAsSigned() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    h.suspendOnCheckpoint(5);
    SnapshotState state = ReplayStateTest.oneByOne(h.records(), JournalHistory.gate()).capture(-1);
    assertThat(state.suspension())
        .hasValueSatisfying(
            x -> assertThat(x.evidence()).isInstanceOf(Suspension.Evidence.ShownCheckpoint.class));
    SnapshotState back = Snapshot.open(Snapshot.sign(STEWARD, state).encoded(), STEWARD_ID).state();
    assertThat(back.suspension()).isEqualTo(state.suspension());
  }

  @Test
  void anEmptyState_opens() throws Exception {
    SnapshotState empty = ReplayState.fresh(JournalHistory.gate()).capture(-1);
    SnapshotState back = Snapshot.open(Snapshot.sign(STEWARD, empty).encoded(), STEWARD_ID).state();
    assertThat(back.position()).isEqualTo(new JournalPosition(0, Optional.empty(), -1));
    assertThat(back.suspension()).isEmpty();
    assertThat(back.lastSealed()).isEmpty();
    assertThat(back.checkpoint()).isEmpty();
    assertThat(back.receipts().first()).isEqualTo(-1);
    assertThat(Snapshot.canonicalBody(STEWARD_ID, back))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, empty));
  }

  @Test
  void theCanonicalBody_ignoresTheLocatorOnly() throws Exception {
    SnapshotState s = richState();
    SnapshotState moved =
        new SnapshotState(
            s.position().withoutLocator(),
            s.ledger(),
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
    assertThat(Snapshot.canonicalBody(STEWARD_ID, moved))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, s));
    assertThat(Snapshot.sign(STEWARD, moved).encoded())
        .isNotEqualTo(Snapshot.sign(STEWARD, s).encoded());
    assertThat(Snapshot.canonicalBody(DidKey.of(OTHER.verificationKey()), s))
        .isNotEqualTo(Snapshot.canonicalBody(STEWARD_ID, s));
  }

  @Test
  void anotherStewardsSnapshot_isRefused() throws Exception {
    byte[] theirs = Snapshot.sign(OTHER, richState()).encoded();
    assertRefused(theirs, SnapshotException.Reason.OTHER_STEWARD);
    assertThat(Snapshot.openAsNamed(theirs).steward())
        .isEqualTo(DidKey.of(OTHER.verificationKey()));
  }

  @Test
  void anAlteredSnapshot_failsItsSignature() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, richState()).encoded());
    byte[] b = body.encode();
    byte[] forged = CborArray.of(CborBytes.of(b), CborBytes.of(OTHER.sign(b))).encode();
    assertRefused(forged, SnapshotException.Reason.BAD_SIGNATURE);
    // Signed without the context prefix: a signature over the body alone is not a snapshot's.
    byte[] bare = CborArray.of(CborBytes.of(b), CborBytes.of(STEWARD.sign(b))).encode();
    assertThat(Snapshot.open(signed(body), STEWARD_ID).state()).isNotNull();
    assertRefused(bare, SnapshotException.Reason.BAD_SIGNATURE);
    assertThatThrownBy(() -> Snapshot.openAsNamed(forged))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.BAD_SIGNATURE));
  }

  @Test
  void anotherFormat_isRefused() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, richState()).encoded());
    assertRefused(
        signed(with(body, "format", CborInt.of(Snapshot.FORMAT + 1))),
        SnapshotException.Reason.UNSUPPORTED_VERSION);
    assertRefused(
        signed(with(body, "format", CborInt.of(Snapshot.FORMAT - 1))),
        SnapshotException.Reason.UNSUPPORTED_VERSION);
  }

  @Test
  void theOuterShape_isChecked() throws Exception {
    byte[] good = Snapshot.sign(STEWARD, richState()).encoded();
    CborArray outer = (CborArray) CanonicalCbor.decode(good);
    CborValue b = outer.items().get(0);
    CborBytes sig = (CborBytes) outer.items().get(1);
    assertRefused(new byte[] {(byte) 0xff}, SnapshotException.Reason.MALFORMED);
    assertRefused(CborArray.of(b).encode(), SnapshotException.Reason.MALFORMED);
    assertRefused(CborArray.of(b, sig, sig).encode(), SnapshotException.Reason.MALFORMED);
    assertRefused(CborInt.of(1).encode(), SnapshotException.Reason.MALFORMED);
    assertRefused(CborArray.of(CborText.of("x"), sig).encode(), SnapshotException.Reason.MALFORMED);
    assertRefused(
        CborArray.of(b, CborBytes.of(Arrays.copyOf(sig.bytes(), 63))).encode(),
        SnapshotException.Reason.MALFORMED);
    assertRefused(CborArray.of(b, CborText.of("sig")).encode(), SnapshotException.Reason.MALFORMED);
    assertRefused(
        CborArray.of(CborBytes.of(new byte[] {(byte) 0xff}), sig).encode(),
        SnapshotException.Reason.MALFORMED);
    assertRefused(
        CborArray.of(CborBytes.of(CborInt.of(1).encode()), sig).encode(),
        SnapshotException.Reason.MALFORMED);
    for (byte[] bad :
        List.of(
            new byte[] {(byte) 0xff},
            CborArray.of(CborBytes.of(CborInt.of(1).encode()), sig).encode(),
            CborArray.of(CborBytes.of(new byte[] {(byte) 0xff}), sig).encode())) {
      assertThatThrownBy(() -> Snapshot.openAsNamed(bad))
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED));
    }
    byte[] notADid = signed(with(body(good), "steward", CborText.of("did:key:nope")));
    assertThatThrownBy(() -> Snapshot.openAsNamed(notADid))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED));
  }

  @Test
  void theKeys_areExactlyTheFormats() throws Exception {
    assertMalformed(b -> with(b, "extra", CborInt.of(1)));
    assertMalformed(b -> with(b, "counts", null));
    assertMalformed(
        b -> {
          CborMap.Builder x = CborMap.builder();
          b.entries().forEach(e -> x.put(e.key(), e.value()));
          return x.put(7, CborInt.of(1)).build();
        });
    assertMalformed(b -> with(b, "steward", CborInt.of(1)));
    assertMalformed(b -> with(b, "format", CborText.of("1")));
    assertMalformed(b -> with(b, "format", CborInt.of(-1)));
  }

  @Test
  void everyFieldIsOfItsType() throws Exception {
    assertMalformed(b -> with(b, "position", CborInt.of(0)));
    assertMalformed(b -> with(b, "position", set(get(b, "position"), 0, CborInt.of(-1))));
    assertMalformed(
        b -> with(b, "position", set(get(b, "position"), 1, CborBytes.of(new byte[5]))));
    assertMalformed(b -> with(b, "position", set(get(b, "position"), 1, CborText.of(""))));
    assertMalformed(b -> with(b, "ledger", set(get(b, "ledger"), 0, t(0, 1_000_000_000))));
    assertMalformed(b -> with(b, "ledger", set(get(b, "ledger"), 0, t(0, -1))));
    assertMalformed(b -> with(b, "ledger", set(get(b, "ledger"), 0, t(Long.MAX_VALUE, 0))));
    assertMalformed(b -> with(b, "ledger", set(get(b, "ledger"), 0, CborArray.of(CborInt.of(0)))));
    assertMalformed(b -> with(b, "ledger", set(get(b, "ledger"), 3, CborBytes.of(new byte[61]))));
    assertMalformed(b -> with(b, "suspension", CborArray.of(CborInt.of(1), CborInt.of(2))));
    assertMalformed(b -> with(b, "head", CborArray.of(CborInt.of(1))));
    assertMalformed(b -> with(b, "head", CborArray.of(CborInt.of(1), CborBytes.of(new byte[31]))));
    assertMalformed(b -> with(b, "checkpoint", CborText.of("not a note")));
    assertMalformed(b -> with(b, "chains", CborArray.of(CborBytes.of(new byte[] {1, 2, 3}))));
    assertMalformed(b -> with(b, "counts", CborArray.of(CborInt.of(-1), CborInt.of(0))));
    assertMalformed(b -> with(b, "counts", CborArray.of(CborInt.of(1))));
    // a value every part decodes but a constructor refuses: the receipts list before any first
    assertMalformed(
        b -> with(b, "receipts", CborArray.of(CborInt.of(-5), CborBytes.of(new byte[32]))));
    assertMalformed(
        b -> {
          CborArray open = (CborArray) get(b, "open");
          CborValue first = set(open.items().get(0), 2, CborBytes.of(new byte[] {1}));
          return with(b, "open", CborArray.of(first));
        });
  }

  @Test
  void aSpentPair_holdsAValidInstant() throws Exception {
    for (long[] bad : new long[][] {{0, -1}, {0, 1_000_000_000}, {Long.MAX_VALUE, 0}}) {
      assertMalformed(
          b -> {
            CborArray ledger = (CborArray) get(b, "ledger");
            byte[] spent = ((CborBytes) ledger.items().get(3)).bytes();
            java.nio.ByteBuffer.wrap(spent).putLong(48, bad[0]).putInt(56, (int) bad[1]);
            return with(b, "ledger", set(ledger, 3, CborBytes.of(spent)));
          });
    }
  }

  @Test
  void aSpentPair_mayEndOnTheLastNanosecondOfASecond() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, richState()).encoded());
    CborArray ledger = (CborArray) get(body, "ledger");
    byte[] spent = ((CborBytes) ledger.items().get(3)).bytes();
    java.nio.ByteBuffer.wrap(spent).putInt(56, 999_999_999);
    CborMap edited = with(body, "ledger", set(ledger, 3, CborBytes.of(spent)));
    assertThat(
            Snapshot.open(signed(edited), STEWARD_ID)
                .state()
                .ledger()
                .spent()
                .getFirst()
                .until()
                .getNano())
        .isEqualTo(999_999_999);
  }

  @Test
  void aNegativeLocator_readsAsNone_andANegativeMeasurementAsAbsent() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, richState()).encoded());
    CborMap edited = with(body, "position", set(get(body, "position"), 2, CborInt.of(-9)));
    assertThat(Snapshot.open(signed(edited), STEWARD_ID).position().locator()).isEqualTo(-1);
  }

  @Test
  void aSnapshot_isCheckedAgainstTheJournalsEnd() throws Exception {
    SnapshotState s = richState();
    Snapshot snap = Snapshot.sign(STEWARD, s);
    JournalPosition at = s.position();
    snap.checkAgainst(at);
    snap.checkAgainst(at.withoutLocator());
    snap.checkAgainst(
        new JournalPosition(at.count() + 1, Optional.of(ContentId.ofBytes(new byte[1])), -1));
    assertThatThrownBy(
            () ->
                snap.checkAgainst(
                    new JournalPosition(
                        at.count() - 1, Optional.of(ContentId.ofBytes(new byte[1])), -1)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.AHEAD_OF_JOURNAL));
    assertThatThrownBy(
            () ->
                snap.checkAgainst(
                    new JournalPosition(
                        at.count(), Optional.of(ContentId.ofBytes(new byte[1])), -1)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.NOT_IN_JOURNAL));
  }

  @Test
  void theSnapshotsGate_holdsItsLedger_andWidensTheOperatorsRevocations() throws Exception {
    SnapshotState s = richState();
    Snapshot snap = Snapshot.open(Snapshot.sign(STEWARD, s).encoded(), STEWARD_ID);
    Revocations operators = Revocations.none();
    var other = new org.meshjava.jcp.GrantId(ContentId.ofBytes(new byte[] {5}));
    operators.revoke(other, T0);
    Gate gate = snap.gate(operators);
    assertThat(gate.holder()).isEqualTo(STEWARD_ID);
    assertThat(gate.ledger().state()).isEqualTo(s.ledger());
    assertThat(gate.revocations().all()).containsAllEntriesOf(s.revocations()).containsKey(other);
    var leaf = JournalHistory.authorised(0).presentation().grantId();
    assertThat(gate.ledger().isSpent(leaf, JournalHistory.nonce(1))).isTrue();
  }

  @Test
  void theLastNanosecondOfASecond_andAMeasuredZero_areValues() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, richState()).encoded());
    CborMap edited = with(body, "ledger", set(get(body, "ledger"), 0, t(5, 999_999_999)));
    assertThat(Snapshot.open(signed(edited), STEWARD_ID).state().ledger().horizon())
        .isEqualTo(java.time.Instant.ofEpochSecond(5, 999_999_999));

    JournalHistory h = new JournalHistory();
    long a = h.authorise(0);
    h.append(new JournalEntry.Debited(a, Energy.measured(0, 100), 0, Optional.empty()));
    SnapshotState s = ReplayStateTest.oneByOne(h.records(), JournalHistory.gate()).capture(-1);
    SnapshotState back = Snapshot.open(Snapshot.sign(STEWARD, s).encoded(), STEWARD_ID).state();
    assertThat(back.settled().getFirst().debit().energy().measuredUj()).hasValue(0);
  }

  /**
   * The tree's levels (SPEC.md §60.8) are the packed levels of exactly the receipts the snapshot
   * holds, or nothing at all (a steward whose log is off): one hash more is refused, none opens
   * without a tree.
   */
  @Test
  void aTreeThatIsNotTheLevelsOfItsReceipts_isMalformed_andNoTreeOpensWithoutOne()
      throws Exception {
    CborMap good = body(Snapshot.sign(STEWARD, richState()).encoded());
    byte[] tree = ((CborBytes) get(good, "tree")).bytes();
    assertThat(tree).isNotEmpty();

    assertRefused(
        signed(with(good, "tree", CborBytes.of(Arrays.copyOf(tree, tree.length + 32)))),
        SnapshotException.Reason.MALFORMED);
    Snapshot none =
        Snapshot.open(signed(with(good, "tree", CborBytes.of(new byte[0]))), STEWARD_ID);
    assertThat(none.state().receipts().size()).isPositive();
    assertThat(none.tree()).isEmpty();
  }
}
