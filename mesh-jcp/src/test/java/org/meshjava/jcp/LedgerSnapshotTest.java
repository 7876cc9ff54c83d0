package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;

/**
 * A ledger's {@link LedgerState} is what a journal snapshot stores (§2.2): a ledger restored from
 * it must decide every later call exactly as the ledger it was taken from, including what it
 * forgets at expiry, and the state itself is a deterministic value (sorted, whatever order the
 * ledger's maps hold things in), so two stewards that did the same work write the same snapshot.
 */
class LedgerSnapshotTest {
  private static final Instant E1 = T0.plusSeconds(100);
  private static final Instant E2 = T0.plusSeconds(200);

  private static GrantId link(String name) {
    return new GrantId(ContentId.ofBytes(bytes("link-" + name)));
  }

  private static final GrantId ROOT = link("root");
  private static final GrantId LEAF = link("leaf");

  /** A root valid to E2 with 10 000 µJ, and a leaf below it valid to E1 with 5 000 µJ. */
  private static final List<LinkBudget> CHAIN =
      List.of(new LinkBudget(ROOT, 10_000, E2), new LinkBudget(LEAF, 5_000, E1));

  @Test
  void aFreshLedger_hasTheEmptyState() {
    assertThat(SpendLedger.inMemory().state()).isEqualTo(LedgerState.empty());
    assertThat(SpendLedger.restore(LedgerState.empty()).state()).isEqualTo(LedgerState.empty());
  }

  @Test
  void state_recordsHorizonSerialAccountsSpentPairsAndOpenReservations() throws Exception {
    SpendLedger ledger = SpendLedger.inMemory();
    ledger.settle(ledger.reserve(LEAF, nonce(1), CHAIN, 1_000, T0), 400);
    Reservation open = ledger.reserve(LEAF, nonce(2), CHAIN, 1_000, T0.plusSeconds(1));
    LedgerState s = ledger.state();
    assertThat(s.horizon()).isEqualTo(T0.plusSeconds(1));
    assertThat(s.nextSerial()).isEqualTo(2);
    List<LedgerState.Account> accounts =
        new ArrayList<>(
            List.of(
                new LedgerState.Account(ROOT, 400, 1_000, E2),
                new LedgerState.Account(LEAF, 400, 1_000, E1)));
    accounts.sort(Comparator.comparing(LedgerState.Account::link));
    assertThat(s.accounts()).containsExactlyElementsOf(accounts);
    assertThat(s.spent())
        .containsExactly(
            new LedgerState.Spent(LEAF, nonce(1), E1), new LedgerState.Spent(LEAF, nonce(2), E1));
    assertThat(s.open()).containsExactly(open);
  }

  @Test
  void state_isSortedWhateverOrderThingsWereSpentIn() throws Exception {
    SpendLedger ledger = SpendLedger.inMemory();
    List<GrantId> leaves = new ArrayList<>();
    List<Reservation> reservations = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      GrantId leaf = link("leaf-" + i);
      leaves.add(leaf);
      for (int n = 12; n > 0; n--) {
        reservations.add(ledger.reserve(leaf, nonce(n), List.of(new LinkBudget(leaf, 1 << 20)), 1));
      }
    }
    // Settle some in the middle so the open set is not simply the first serials.
    for (int i = 0; i < reservations.size(); i += 3) {
      ledger.release(reservations.get(i));
    }
    LedgerState s = ledger.state();
    List<GrantId> accountOrder = s.accounts().stream().map(LedgerState.Account::link).toList();
    assertThat(accountOrder).isSorted().hasSize(leaves.size());
    List<String> pairOrder =
        s.spent().stream()
            .map(p -> p.leaf().hex() + ":" + java.util.HexFormat.of().formatHex(p.nonce().bytes()))
            .toList();
    assertThat(pairOrder).isSorted().hasSize(12 * 12);
    assertThat(s.open().stream().map(Reservation::serial).toList()).isSorted().hasSize(12 * 8);
    // The same work done again writes the same state.
    SpendLedger again = SpendLedger.restore(s);
    assertThat(again.state()).isEqualTo(s);
  }

  @Test
  void aRestoredLedger_decidesEveryLaterCallAsTheOriginal() throws Exception {
    SpendLedger original = SpendLedger.inMemory();
    original.settle(original.reserve(LEAF, nonce(1), CHAIN, 1_000, T0), 400);
    Reservation open = original.reserve(LEAF, nonce(2), CHAIN, 1_000, T0.plusSeconds(1));
    SpendLedger restored = SpendLedger.restore(original.state());

    for (SpendLedger l : List.of(original, restored)) {
      assertThat(l.isSpent(LEAF, nonce(1))).isTrue();
      assertThat(l.spend(ROOT)).isEqualTo(new LinkSpend(ROOT, 400, 1_000));
      assertThat(l.liveEntries()).isEqualTo(4);
      assertThat(
              assertThrows(
                      GrantRefusedException.class,
                      () -> l.reserve(LEAF, nonce(1), CHAIN, 1, T0.plusSeconds(2)))
                  .label())
          .isEqualTo(DenialLabel.PRESENTATION_SPENT);
      // 5 000 - 400 - 1 000 left on the leaf: exactly 3 600 fits, one more does not.
      assertThat(
              assertThrows(
                      GrantRefusedException.class,
                      () -> l.reserve(LEAF, nonce(3), CHAIN, 3_601, T0.plusSeconds(2)))
                  .label())
          .isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    }
    // The reservation open at the snapshot settles in the restored ledger as in the original.
    assertThat(restored.settle(open, 600)).isEqualTo(original.settle(open, 600));
    assertThatThrownBy(() -> restored.release(open)).isInstanceOf(IllegalStateException.class);
    // Serials continue where the original's did.
    Reservation next = original.reserve(LEAF, nonce(4), CHAIN, 10, T0.plusSeconds(3));
    assertThat(restored.reserve(LEAF, nonce(4), CHAIN, 10, T0.plusSeconds(3))).isEqualTo(next);
    assertThat(restored.state()).isEqualTo(original.state());
  }

  @Test
  void aRestoredLedger_forgetsAtExpiryAsTheOriginalWould() throws Exception {
    SpendLedger original = SpendLedger.inMemory();
    original.settle(original.reserve(LEAF, nonce(1), CHAIN, 1_000, T0), 400);
    // A pair and a link kept for good (the four-argument reserve) alongside.
    GrantId forever = link("forever");
    original.settle(
        original.reserve(forever, nonce(1), List.of(new LinkBudget(forever, 50)), 5), 5);
    SpendLedger restored = SpendLedger.restore(original.state());
    GrantId later = link("later");
    List<LinkBudget> laterChain = List.of(new LinkBudget(later, 100, T0.plusSeconds(1_000)));

    // At E1 the leaf's pair and account go; the root (valid to E2) stays.
    for (SpendLedger l : List.of(original, restored)) {
      l.settle(l.reserve(later, nonce(9), laterChain, 1, E1), 1);
      assertThat(l.isSpent(LEAF, nonce(1))).isFalse();
      assertThat(l.spend(LEAF)).isEqualTo(new LinkSpend(LEAF, 0, 0));
      assertThat(l.spend(ROOT)).isEqualTo(new LinkSpend(ROOT, 400, 0));
      assertThat(l.isSpent(forever, nonce(1))).isTrue();
    }
    assertThat(restored.state()).isEqualTo(original.state());
    // At E2 the root goes too; what never expires is kept.
    for (SpendLedger l : List.of(original, restored)) {
      l.settle(l.reserve(later, nonce(10), laterChain, 1, E2), 1);
      assertThat(l.spend(ROOT)).isEqualTo(new LinkSpend(ROOT, 0, 0));
      assertThat(l.spend(forever)).isEqualTo(new LinkSpend(forever, 5, 0));
      // forever's pair and account, later's two pairs and its account.
      assertThat(l.liveEntries()).isEqualTo(5);
    }
    assertThat(restored.state()).isEqualTo(original.state());
  }

  @Test
  void restore_refusesAStateThatNamesSomethingTwice() {
    LedgerState.Account account = new LedgerState.Account(ROOT, 1, 0, E1);
    LedgerState.Spent pair = new LedgerState.Spent(LEAF, nonce(1), E1);
    Reservation r = new Reservation(0, LEAF, nonce(1), CHAIN, 1);
    assertThatThrownBy(
            () ->
                SpendLedger.restore(
                    new LedgerState(T0, 1, List.of(account, account), List.of(), List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                SpendLedger.restore(
                    new LedgerState(T0, 1, List.of(), List.of(pair, pair), List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> SpendLedger.restore(new LedgerState(T0, 1, List.of(), List.of(), List.of(r, r))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ledgerState_refusesImpossibleFigures() {
    Reservation r = new Reservation(4, LEAF, nonce(1), CHAIN, 1);
    assertThatThrownBy(() -> new LedgerState(T0, -1, List.of(), List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    // An open reservation's serial was taken, so the next serial is above it.
    assertThatThrownBy(() -> new LedgerState(T0, 4, List.of(), List.of(), List.of(r)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new LedgerState(T0, 5, List.of(), List.of(), List.of(r)).open()).containsExactly(r);
    assertThat(new LedgerState(T0, 0, List.of(), List.of(), List.of()).nextSerial()).isZero();
    assertThatThrownBy(() -> new LedgerState.Account(ROOT, -1, 0, E1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LedgerState.Account(ROOT, 0, -1, E1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new LedgerState.Account(ROOT, 0, 0, E1).debitedUj()).isZero();
  }

  @Test
  void gateResume_settlesAnAuthorisationOpenAtTheSnapshotAsTheOriginalWould() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(5_000, new MaxCostUj(900), new MaxCostUj(700));
    Presentation p = present(chain, REQUEST, 1);
    Authorisation a = gate.decide(p, REQUEST, Optional.of(WEIGHTS_A), NOW);
    Gate resumedGate =
        Gate.create(STEWARD_DID, SpendLedger.restore(gate.ledger().state()), Revocations.none());
    Authorisation resumed =
        resumedGate.resume(p, REQUEST, Optional.of(WEIGHTS_A), NOW, a.reservation());
    assertThat(resumed.maxCostUj()).isEqualTo(a.maxCostUj()).hasValue(700);
    assertThat(resumed.grantId()).isEqualTo(a.grantId());
    assertThat(resumed.ceilingUj()).isEqualTo(CEILING);
    assertThat(resumed.model()).contains(WEIGHTS_A);
    assertThat(resumed.decisionTime()).isEqualTo(NOW);
    assertThat(resumedGate.debit(resumed, 800)).isEqualTo(gate.debit(a, 800));
    assertThat(resumedGate.ledger().state()).isEqualTo(gate.ledger().state());
  }

  @Test
  void gateResume_withoutAMaxCostUj_judgesNoCostCaveat() throws Exception {
    Gate gate = gate();
    Presentation p = present(directChain(5_000), REQUEST, 1);
    Authorisation a = gate.decide(p, REQUEST, Optional.empty(), NOW);
    Authorisation resumed = gate.resume(p, REQUEST, Optional.empty(), NOW, a.reservation());
    assertThat(resumed.maxCostUj()).isEmpty();
    assertThat(gate.debit(resumed, 4_000).breach()).isEmpty();
  }

  @Test
  void gateResume_refusesAReservationThatIsNotThePresentations() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(5_000);
    Presentation p = present(chain, REQUEST, 1);
    Reservation held = gate.decide(p, REQUEST, Optional.empty(), NOW).reservation();
    Presentation otherNonce = present(chain, REQUEST, 2);
    Presentation otherLeaf = present(directChain(6_000), REQUEST, 1);
    ServeRequest bigger = request("hello", CEILING + 1);
    for (Runnable wrong :
        List.<Runnable>of(
            () -> gate.resume(otherNonce, REQUEST, Optional.empty(), NOW, held),
            () -> gate.resume(otherLeaf, REQUEST, Optional.empty(), NOW, held),
            () -> gate.resume(p, bigger, Optional.empty(), NOW, held))) {
      assertThatThrownBy(wrong::run).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
