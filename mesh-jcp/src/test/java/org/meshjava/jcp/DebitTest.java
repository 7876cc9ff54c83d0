package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

class DebitTest {

  @Test
  void debit_chargesEveryLinkAndReleasesTheReservation() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(5_000);
    Authorisation a = decide(gate, present(chain, REQUEST, 1));
    DebitResult r = gate.debit(a, 400);
    assertThat(r.grantId()).isEqualTo(chain.leaf().id());
    assertThat(r.debitedUj()).isEqualTo(400);
    assertThat(r.breach()).isEmpty();
    assertThat(r.remainingUj()).isEqualTo(4_600);
    for (GrantId id : chain.ids()) {
      assertThat(gate.ledger().spend(id)).isEqualTo(new LinkSpend(id, 400, 0));
    }
  }

  @Test
  void samePresentationTwice_isRefusedTheSecondTime() throws Exception {
    Gate gate = gate();
    Presentation p = present(directChain(50_000), REQUEST, 1);
    gate.debit(decide(gate, p), 100);
    GrantRefusedException e = assertThrows(GrantRefusedException.class, () -> decide(gate, p));
    assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
    // Replaying the exact bytes is the same presentation.
    Presentation replayed = Presentation.fromHex(p.toHex());
    assertThat(assertThrows(GrantRefusedException.class, () -> decide(gate, replayed)).label())
        .isEqualTo(DenialLabel.PRESENTATION_SPENT);
  }

  @Test
  void aFreshNonceOnTheSameRequest_isServedAndDebitedAgain() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(50_000);
    gate.debit(decide(gate, present(chain, REQUEST, 1)), 300);
    DebitResult second = gate.debit(decide(gate, present(chain, REQUEST, 2)), 300);
    assertThat(second.remainingUj()).isEqualTo(50_000 - 600);
    assertThat(gate.ledger().spend(chain.leaf().id()).debitedUj()).isEqualTo(600);
  }

  @Test
  void samePresentation_isSpentOnlyAtTheStewardThatSpentIt() throws Exception {
    // Spent-ness is per steward (§2.1): a fresh ledger has not seen the pair.
    Presentation p = present(directChain(50_000), REQUEST, 1);
    decide(gate(), p);
    decide(gate(), p);
  }

  @Test
  void breachOfMaxCostUj_isDebitedLabelledAndSeenByALaterDecision() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(5_000, new MaxCostUj(500));
    Authorisation a = decide(gate, present(chain, REQUEST, 1));
    assertThat(a.maxCostUj()).hasValue(500);
    DebitResult r = gate.debit(a, 900);
    assertThat(r.breach()).contains(DenialLabel.CAVEAT_UNSATISFIED);
    assertThat(r.breach().orElseThrow().wire()).isEqualTo("caveat-unsatisfied");
    assertThat(r.debitedUj()).isEqualTo(900);
    assertThat(r.remainingUj()).isEqualTo(4_100);
    assertThat(gate.remainingUj(chain)).isEqualTo(4_100);
    for (GrantId id : chain.ids()) {
      assertThat(gate.ledger().spend(id).debitedUj()).isEqualTo(900);
    }
    // A later serve sees the reduced budget: four ceilings fit, the fifth does not.
    for (int n = 2; n <= 5; n++) {
      gate.debit(decide(gate, present(chain, REQUEST, n)), CEILING);
    }
    assertThat(gate.remainingUj(chain)).isEqualTo(100);
    GrantRefusedException e =
        assertThrows(GrantRefusedException.class, () -> decide(gate, present(chain, REQUEST, 6)));
    assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
  }

  @Test
  void debitAtExactlyMaxCostUj_isNoBreach() throws Exception {
    Gate gate = gate();
    Authorisation a = decide(gate, present(directChain(5_000, new MaxCostUj(500)), REQUEST, 1));
    assertThat(gate.debit(a, 500).breach()).isEmpty();
  }

  @Test
  void debitAboveTheCeilingThatOverspendsALink_isDebitedAndLabelledBudgetExhausted()
      throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(CEILING);
    DebitResult r = gate.debit(decide(gate, present(chain, REQUEST, 1)), CEILING + 1);
    assertThat(r.breach()).contains(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(r.remainingUj()).isZero();
    assertThat(gate.ledger().spend(chain.leaf().id()).debitedUj()).isEqualTo(CEILING + 1);
  }

  @Test
  void release_returnsTheReservationButKeepsThePresentationSpent() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(5_000);
    Presentation p = present(chain, REQUEST, 1);
    Authorisation a = decide(gate, p);
    assertThat(gate.remainingUj(chain)).isEqualTo(4_000);
    gate.release(a);
    assertThat(gate.remainingUj(chain)).isEqualTo(5_000);
    assertThat(gate.ledger().spend(chain.leaf().id()))
        .isEqualTo(new LinkSpend(chain.leaf().id(), 0, 0));
    assertThat(assertThrows(GrantRefusedException.class, () -> decide(gate, p)).label())
        .isEqualTo(DenialLabel.PRESENTATION_SPENT);
  }

  @Test
  void settlingAnAuthorisationTwice_isABug() throws Exception {
    Gate gate = gate();
    Authorisation a = decide(gate, present(directChain(5_000), REQUEST, 1));
    gate.debit(a, 10);
    assertThatThrownBy(() -> gate.debit(a, 10)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> gate.release(a)).isInstanceOf(IllegalStateException.class);
    Authorisation b = decide(gate, present(directChain(5_000), REQUEST, 2));
    gate.release(b);
    assertThatThrownBy(() -> gate.debit(b, 10)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anAuthorisationFromAnotherGate_isRefused() throws Exception {
    Authorisation a = decide(gate(), present(directChain(5_000), REQUEST, 1));
    Gate other = gate();
    assertThatThrownBy(() -> other.debit(a, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> other.release(a)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void negativeMeteredJoules_areRefused() throws Exception {
    Gate gate = gate();
    Authorisation a = decide(gate, present(directChain(5_000), REQUEST, 1));
    assertThatThrownBy(() -> gate.debit(a, -1)).isInstanceOf(IllegalArgumentException.class);
    gate.debit(a, 0);
  }

  @Test
  void replayingDecisionsAndDebitsAtRecordedTimes_rebuildsTheSameLedger() throws Exception {
    GrantChain chain = twoLinkChain(10_000, new MaxCostUj(700));
    Presentation[] ps = new Presentation[8];
    long[] metered = {100, 800, 0, 650, 1000, 5, 700, 300};
    for (int i = 0; i < ps.length; i++) {
      ps[i] = present(chain, REQUEST, i + 1);
    }
    Revocations revocations = Revocations.none();
    revocations.revoke(chain.leaf().id(), NOW.plusSeconds(6));
    Gate[] gates = {
      Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations),
      Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations)
    };
    String[] outcomes = new String[2];
    for (int g = 0; g < 2; g++) {
      StringBuilder log = new StringBuilder();
      for (int i = 0; i < ps.length; i++) {
        try {
          Authorisation a =
              gates[g].decide(ps[i], REQUEST, Optional.of(WEIGHTS_A), NOW.plusSeconds(i));
          log.append(gates[g].debit(a, metered[i])).append('\n');
        } catch (GrantRefusedException e) {
          log.append(e.label()).append('\n');
        }
      }
      outcomes[g] = log + "" + gates[g].ledger().spend(chain.root().id());
    }
    assertThat(outcomes[1]).isEqualTo(outcomes[0]);
    assertThat(outcomes[0]).contains("revoked").contains("caveat-unsatisfied");
  }
}
