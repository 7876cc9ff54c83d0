package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.id;
import static org.meshjava.receipt.TestReceipts.with;
import static org.meshjava.receipt.TestReceipts.without;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Energy;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.ReceiptException.Reason;

/** A typed decision's receipt (§3.6): the decision's own efficiency figures, no token wedge. */
class DecisionReceiptTest {

  /** 3 questions over 14 options, 121 schema tokens of 132, 10 000 µJ estimated. */
  static MeshReceipt.Builder decisionDraft() {
    return TestReceipts.generationDraft()
        .counters(new OutcomeCounters(132, 0, 0, 0, 0, 0))
        .energy(Energy.estimated(10_000))
        .decision(Optional.of(new DecisionShape(3, 14, 121)));
  }

  @Test
  void decisionReceipt_carriesTheShapeAndPerDecisionFigures_andNoTokenWedge() {
    CborMap core = TestReceipts.genesis(decisionDraft()).toSignedCore();

    assertThat(core.get("questions_answered")).contains(CborInt.of(3));
    assertThat(core.get("options_scored")).contains(CborInt.of(14));
    assertThat(core.get("schema_tokens")).contains(CborInt.of(121));
    assertThat(core.get("uj_per_decision")).contains(CborInt.of(10_000 / 3));
    assertThat(core.get("uj_per_option_scored")).contains(CborInt.of(10_000 / 14));
    assertThat(core.get("uj_per_accepted_token")).isEmpty();
    assertThat(core.get("output_commitment")).isEmpty();
  }

  @Test
  void decisionReceipt_perDecisionFigures_useTheMeasurementWhenPresent() {
    CborMap core =
        TestReceipts.genesis(decisionDraft().energy(Energy.measured(7_000, 10_000))).toSignedCore();

    assertThat(core.get("uj_per_decision")).contains(CborInt.of(7_000 / 3));
    assertThat(core.get("uj_per_option_scored")).contains(CborInt.of(7_000 / 14));
  }

  @Test
  void decisionReceipt_evenWithAcceptedTokens_hasNoTokenWedge() {
    MeshReceipt r =
        TestReceipts.genesis(decisionDraft().counters(new OutcomeCounters(132, 0, 5, 0, 0, 0)));

    assertThat(r.ujPerAcceptedToken()).isEmpty();
    assertThat(r.toSignedCore().get("uj_per_accepted_token")).isEmpty();
  }

  @Test
  void decisionReceipt_withAnOutputCommitment_cannotBeBuilt() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> TestReceipts.genesis(decisionDraft().outputCommitment(Optional.of(id("c")))));
  }

  @Test
  void decisionReceipt_sealsAndOpensToTheSameReceipt() throws Exception {
    MeshReceipt r = TestReceipts.genesis(decisionDraft());

    assertThat(Jcr1.open(Jcr1.seal(r, KEY).envelope()).receipt()).isEqualTo(r);
  }

  @Test
  void open_ofASignedDecisionCoreWithATokenWedge_refusesAsInconsistent() {
    CborMap core =
        with(
            TestReceipts.genesis(decisionDraft()).toSignedCore(),
            "uj_per_accepted_token",
            CborInt.of(1));

    assertRefusedAsInconsistent(core);
  }

  @Test
  void open_ofASignedDecisionCoreWithAnOutputCommitment_refusesAsInconsistent() {
    CborMap core =
        with(
            TestReceipts.genesis(decisionDraft()).toSignedCore(),
            "output_commitment",
            new CborText(id("c").hex()));

    assertRefusedAsInconsistent(core);
  }

  @Test
  void open_ofASignedDecisionCoreWithAWrongPerOptionFigure_refusesAsInconsistent() {
    CborMap core =
        with(
            TestReceipts.genesis(decisionDraft()).toSignedCore(),
            "uj_per_option_scored",
            CborInt.of(10_000 / 14 + 1));

    assertRefusedAsInconsistent(core);
  }

  @Test
  void open_ofASignedDecisionCoreWithoutAPerOptionFigure_acceptsIt_andReencodesToTheSameBytes()
      throws Exception {
    // §3.6 makes uj_per_option_scored a SHOULD: a decision receipt sealed by another
    // implementation without it is conformant, so a verifier must not refuse it.
    CborMap core =
        without(TestReceipts.genesis(decisionDraft()).toSignedCore(), "uj_per_option_scored");

    MeshReceipt opened = Jcr1.open(TestReceipts.signCore(core, KEY)).receipt();

    assertThat(opened.ujPerDecision()).hasValue(10_000 / 3);
    assertThat(opened.ujPerOptionScored()).isEmpty();
    assertThat(opened.toSignedCore().encode()).isEqualTo(core.encode());
  }

  @Test
  void open_ofASignedGenerationCoreWithAPerOptionFigure_refusesAsInconsistent() {
    CborMap core =
        with(
            TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore(),
            "uj_per_option_scored",
            CborInt.of(1));

    assertRefusedAsInconsistent(core);
  }

  private static void assertRefusedAsInconsistent(CborMap core) {
    Throwable t = catchThrowable(() -> Jcr1.open(TestReceipts.signCore(core, KEY)));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.INCONSISTENT_RECEIPT));
  }
}
