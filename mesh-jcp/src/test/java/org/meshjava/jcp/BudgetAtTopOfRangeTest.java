package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;

/**
 * SPEC 30 §8, "Figures": a budget may be anything up to 2^63 − 1 (SPEC 30 §2), and the gate must
 * see an overspend at every one of them, the top included, although the figures it sums stop at
 * 2^63 − 1.
 */
class BudgetAtTopOfRangeTest {
  private static final long TOP = Long.MAX_VALUE;
  private static final ServeRequest FREE = request("hello", 0);

  private static Authorisation decideFree(Gate gate, Presentation p) throws GrantRefusedException {
    return gate.decide(p, FREE, Optional.of(WEIGHTS_A), NOW);
  }

  @Test
  void topBudget_spentExactly_isNoBreach_andAFreeServeIsStillAdmitted() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(TOP);
    DebitResult all = gate.debit(decideFree(gate, present(chain, FREE, 1)), TOP);
    assertThat(all.breach()).isEmpty();
    assertThat(all.remainingUj()).isZero();
    decideFree(gate, present(chain, FREE, 2));
  }

  @Test
  void topBudget_debitedPastIt_isABreach_andRefusesEvenAFreeServe() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(TOP);
    gate.debit(decideFree(gate, present(chain, FREE, 1)), TOP);
    DebitResult past = gate.debit(decideFree(gate, present(chain, FREE, 2)), 1);
    assertThat(past.breach()).contains(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(gate.ledger().spend(chain.leaf().id()))
        .isEqualTo(new LinkSpend(chain.leaf().id(), TOP, 0, true));
    GrantRefusedException e =
        assertThrows(GrantRefusedException.class, () -> decideFree(gate, present(chain, FREE, 3)));
    assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(gate.remainingUj(chain)).isZero();
  }

  @Test
  void topBudget_oneDebitOfTheWholeRangeTwice_isABreachOnEveryLink() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(TOP);
    gate.debit(decideFree(gate, present(chain, FREE, 1)), TOP);
    assertThat(gate.debit(decideFree(gate, present(chain, FREE, 2)), TOP).breach())
        .contains(DenialLabel.BUDGET_EXHAUSTED);
    for (GrantId id : chain.ids()) {
      assertThat(gate.ledger().spend(id).debitPastRange()).as("link %s", id).isTrue();
    }
  }

  @Test
  void topBudget_debitThatMeetsOthersReservations_pastTheRange_isABreach() throws Exception {
    // Another serve holds 1 000 µJ reserved; this one overruns its ceiling of 0 by TOP − 5. The
    // debit alone fits the range, debit plus reservation does not: the link is 995 µJ overspent.
    Gate gate = gate();
    GrantChain chain = directChain(TOP);
    decide(gate, present(chain, REQUEST, 1));
    DebitResult r = gate.debit(decideFree(gate, present(chain, FREE, 2)), TOP - 5);
    assertThat(r.breach()).contains(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(gate.ledger().spend(chain.leaf().id()).remainingUj(TOP)).isEqualTo(-995);
  }

  @Test
  void budgetBelowTheTop_seesTheOverspendAtTheTop() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(TOP - 1);
    assertThat(gate.debit(decideFree(gate, present(chain, FREE, 1)), TOP - 1).breach()).isEmpty();
    assertThat(gate.debit(decideFree(gate, present(chain, FREE, 2)), 1).breach())
        .contains(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(
            assertThrows(
                    GrantRefusedException.class, () -> decideFree(gate, present(chain, FREE, 3)))
                .label())
        .isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
  }

  @Test
  void pastRange_survivesTheLedgersState() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(TOP);
    gate.debit(decideFree(gate, present(chain, FREE, 1)), TOP);
    gate.debit(decideFree(gate, present(chain, FREE, 2)), 7);
    LedgerState state = gate.ledger().state();
    assertThat(state.accounts())
        .singleElement()
        .satisfies(a -> assertThat(a.debitPastRange()).isTrue());
    SpendLedger restored = SpendLedger.restore(state);
    assertThat(restored.spend(chain.leaf().id()).remainingUj(TOP)).isNegative();
  }

  @Test
  void linkSpend_plusDebit_setsTheFlagOnlyPastTheRange() {
    GrantId g = directChainId();
    LinkSpend atTop = new LinkSpend(g, 0, 0).plusDebit(TOP);
    assertThat(atTop.debitPastRange()).isFalse();
    assertThat(atTop.remainingUj(TOP)).isZero();
    LinkSpend past = atTop.plusDebit(1);
    assertThat(past).isEqualTo(new LinkSpend(g, TOP, 0, true));
    assertThat(past.plusDebit(0).debitPastRange()).isTrue();
    assertThat(past.committedUj()).isEqualTo(TOP);
    assertThatThrownBy(() -> new LinkSpend(g, TOP - 1, 0, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stop at 2^63 - 1");
    assertThat(List.of(new LinkSpend(g, TOP, TOP).remainingUj(0))).containsExactly(Long.MIN_VALUE);
  }

  private static GrantId directChainId() {
    try {
      return directChain(1).leaf().id();
    } catch (IssuanceException e) {
      throw new AssertionError(e);
    }
  }
}
