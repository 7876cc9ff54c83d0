package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;

/** §3.6 and §6.1: what a decision receipt carries, and what a generation's does not gain. */
class DecisionReceiptClaimsTest {
  private static final Set<String> DECISION_KEYS =
      Set.of(
          "questions_answered",
          "options_scored",
          "schema_tokens",
          "uj_per_decision",
          "uj_per_option_scored");

  private static Set<String> keys(MeshReceipt r) {
    Set<String> keys = new TreeSet<>();
    for (CborMap.Entry e : r.toSignedCore().entries()) {
      keys.add(((CborText) e.key()).value());
    }
    return keys;
  }

  private static long value(MeshReceipt r, String key) {
    return ((CborInt) r.toSignedCore().get(new CborText(key)).orElseThrow()).value();
  }

  /** Upstream defect: the efficiency figure divided by tokens_accepted, 0 for every decision. */
  @Test
  void decisionReceipt_hasAnEfficiencyFigure() {
    MeshReceipt d = ClaimsFixtures.decision(ClaimsFixtures.REQUEST);
    assertThat(keys(d)).containsAll(DECISION_KEYS).doesNotContain("uj_per_accepted_token");
    assertThat(value(d, "uj_per_decision")).isEqualTo(1000 / 3);
    assertThat(value(d, "uj_per_option_scored")).isEqualTo(1000 / 7);
    assertThat(value(d, "questions_answered")).isEqualTo(3);
    assertThat(value(d, "options_scored")).isEqualTo(7);
    assertThat(value(d, "schema_tokens")).isEqualTo(11);
  }

  @Test
  void decisionFigures_useTheMeasuredEnergyWhenThereIsOne() {
    MeshReceipt d =
        ClaimsFixtures.decision(ClaimsFixtures.REQUEST).toBuilder()
            .energy(Energy.measured(2100, 1000))
            .build();
    assertThat(d.ujPerDecision()).hasValue(700);
    assertThat(d.ujPerOptionScored()).hasValue(300);
  }

  @Test
  void generationReceipt_gainsNoDecisionKey() {
    MeshReceipt g =
        ClaimsFixtures.generation(
            ClaimsFixtures.REQUEST,
            Opening.Key.of(ClaimsFixtures.KEY).open(ClaimsFixtures.REQUEST));
    assertThat(keys(g))
        .doesNotContainAnyElementsOf(DECISION_KEYS)
        .contains("uj_per_accepted_token");
    assertThat(value(g, "uj_per_accepted_token")).isEqualTo(1000 / 4);
  }

  @Test
  void generation_withNoAcceptedTokens_omitsTheWedge() {
    MeshReceipt g =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .counters(new OutcomeCounters(3, 0, 0, 0, 0, 0))
            .build();
    assertThat(keys(g)).doesNotContain("uj_per_accepted_token");
  }

  @Test
  void decision_refusesAnOutputCommitment() {
    assertThatThrownBy(
            () ->
                ClaimsFixtures.decision(ClaimsFixtures.REQUEST).toBuilder()
                    .outputCommitment(Optional.of(ClaimsFixtures.REQUEST))
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void decode_refusesADecisionReceiptWhoseFiguresDisagree() {
    MeshReceipt d = ClaimsFixtures.decision(ClaimsFixtures.REQUEST);
    CborMap.Builder b = coreWithout(d, "uj_per_decision");
    b.put("uj_per_decision", 1);
    assertThatThrownBy(() -> SignedCore.decode(b.build()))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT));
  }

  /**
   * SPEC.md 20.2 and 50: {@code uj_per_decision} is a MUST on a decision; a core without it is
   * refused.
   */
  @Test
  void decode_refusesADecisionReceiptWithoutUjPerDecision() {
    MeshReceipt d = ClaimsFixtures.decision(ClaimsFixtures.REQUEST);
    CborMap.Builder b = coreWithout(d, "uj_per_decision");
    assertThatThrownBy(() -> SignedCore.decode(b.build()))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT);
              assertThat(e.getMessage()).contains("uj_per_decision");
            });
  }

  /** {@code r}'s signed core with every entry but {@code key}'s, to build on. */
  private static CborMap.Builder coreWithout(MeshReceipt r, String key) {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : r.toSignedCore().entries()) {
      if (!e.key().equals(new CborText(key))) {
        b.put(e.key(), e.value());
      }
    }
    return b;
  }
}
