package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;

/**
 * The spend ledger at its edges: zero amounts, a debit that uses a budget exactly, and forgetting
 * in expiry order whatever order things were spent in (§2.2, SPEC.md's nonce lifetime rule).
 */
class SpendLedgerEdgeTest {
  private static final Instant E1 = T0.plusSeconds(100);
  private static final Instant E2 = T0.plusSeconds(200);

  private static GrantId link(String name) {
    return new GrantId(ContentId.ofBytes(bytes("link-" + name)));
  }

  @Test
  void aZeroCeiling_reservesNothing_andAZeroDebitChargesNothing() throws Exception {
    SpendLedger ledger = SpendLedger.inMemory();
    GrantId g = link("g");
    List<LinkBudget> chain = List.of(new LinkBudget(g, 1));
    Reservation r = ledger.reserve(g, nonce(1), chain, 0);
    assertThat(r.amountUj()).isZero();
    assertThat(ledger.spend(g)).isEqualTo(new LinkSpend(g, 0, 0));
    assertThat(ledger.settle(r, 0)).containsExactly(new LinkSpend(g, 0, 0));
    // The whole budget is still there.
    ledger.settle(ledger.reserve(g, nonce(2), chain, 1), 1);
    assertThat(ledger.spend(g)).isEqualTo(new LinkSpend(g, 1, 0));
  }

  @Test
  void aDebitThatUsesTheBudgetExactly_isNoBreach() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(CEILING);
    DebitResult r = gate.debit(decide(gate, present(chain, REQUEST, 1)), CEILING);
    assertThat(r.breach()).isEmpty();
    assertThat(r.remainingUj()).isZero();
  }

  @Test
  void spentPairs_areForgottenInExpiryOrder_notInTheOrderTheyWereSpent() throws Exception {
    SpendLedger ledger = SpendLedger.inMemory();
    GrantId late = link("late");
    GrantId early = link("early");
    GrantId clock = link("clock");
    // The later-expiring grant is spent first.
    ledger.settle(ledger.reserve(late, nonce(1), List.of(new LinkBudget(late, 10, E2)), 1, T0), 1);
    ledger.settle(
        ledger.reserve(early, nonce(1), List.of(new LinkBudget(early, 10, E1)), 1, T0), 1);
    ledger.settle(
        ledger.reserve(
            clock, nonce(1), List.of(new LinkBudget(clock, 10, E2.plusSeconds(1))), 1, E1),
        1);
    assertThat(ledger.isSpent(early, nonce(1))).isFalse();
    assertThat(ledger.spend(early)).isEqualTo(new LinkSpend(early, 0, 0));
    assertThat(ledger.isSpent(late, nonce(1))).isTrue();
    assertThat(ledger.spend(late)).isEqualTo(new LinkSpend(late, 1, 0));
    assertThat(ledger.liveEntries()).isEqualTo(4);
  }

  @Test
  void aReservationReleasedAfterItsGrantExpired_isForgottenThen() throws Exception {
    Gate gate = gate();
    GrantChain shortRoot = Jcp.issueRoot(CALLER, STEWARD_DID, 5_000, T0, E1);
    Authorisation open = gate.decide(present(shortRoot, REQUEST, 1), REQUEST, Optional.empty(), T0);
    // A later decision moves the ledger past the short grant's expiry while it is still reserved.
    gate.debit(
        gate.decide(present(directChain(5_000), REQUEST, 2), REQUEST, Optional.empty(), E1), 1);
    GrantId leaf = shortRoot.leaf().id();
    assertThat(gate.ledger().spend(leaf).reservedUj()).isEqualTo(CEILING);
    gate.release(open);
    assertThat(gate.ledger().spend(leaf)).isEqualTo(new LinkSpend(leaf, 0, 0));
    // Only the later serve's pair and link remain.
    assertThat(gate.ledger().liveEntries()).isEqualTo(2);
  }

  @Test
  void zeroFigures_areValid() {
    GrantId g = link("g");
    assertThat(new LinkBudget(g, 0).budgetUj()).isZero();
    assertThat(new Reservation(0, g, nonce(1), List.of(new LinkBudget(g, 0)), 0).amountUj())
        .isZero();
    assertThat(new MaxCostUj(0).uj()).isZero();
    assertThat(new Shard(STEWARD_DID, 0).budgetUj()).isZero();
    assertThat(new LinkSpend(g, 0, 0).committedUj()).isZero();
  }
}
