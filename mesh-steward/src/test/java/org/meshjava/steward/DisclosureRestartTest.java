package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;

/** §6.4: a generation commits, a decision does not, and a restarted steward reopens. */
class DisclosureRestartTest {
  static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  static final TokenSequence PROMPT = TokenSequence.of(11, 12, 13);
  static final ServeRequest GENERATION =
      ServeRequest.generation(
          ContentId.ofBytes(new byte[] {1}), 3, new ServeBounds(8, Fidelity.F1, 100_000));

  static Steward steward() {
    return Steward.builder(KEY)
        .chainHead(ChainHead.GENESIS)
        .meter(new org.meshjava.energy.EstimatorMeter())
        .backend(ReferenceEngine.builder().build())
        .build();
  }

  @Test
  void generation_commits_andItsDisclosureOpens() throws Exception {
    Steward s = steward();
    ServeResult r = s.serve(GENERATION, PROMPT);
    assertThat(r.receipt().outputCommitment()).isPresent();
    Disclosure d = s.disclose(r, PROMPT);
    assertThat(d.tokens()).isEqualTo(r.tokens());
    // Anyone can check it against the receipt read back from its envelope.
    MeshReceipt opened = Jcr1.open(r.envelope()).receipt();
    assertThatCode(() -> d.verify(opened)).doesNotThrowAnyException();
  }

  @Test
  void decision_commitsToNothing_andCannotBeDisclosed() throws Exception {
    Steward s = steward();
    ServeResult r =
        s.serve(
            DecisionServeTest.request(0, 100_000),
            DecisionServeTest.PROMPT,
            DecisionServeTest.QUESTIONS);
    assertThat(r.receipt().outputCommitment()).isEmpty();
    assertThatThrownBy(() -> s.disclose(r, DecisionServeTest.PROMPT))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.NO_COMMITMENT));
  }

  @Test
  void disclose_refusesAWrongPayload() throws Exception {
    Steward s = steward();
    ServeResult r = s.serve(GENERATION, PROMPT);
    assertThatThrownBy(() -> s.disclose(r, TokenSequence.of(11, 12)))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.NOT_OPENED));
  }

  @Test
  void restartedSteward_reopensAReceiptTheFirstSealed() throws Exception {
    Steward first = steward();
    ServeResult r = first.serve(GENERATION, PROMPT);
    ChainHead head = first.head();
    // A new process: nothing carried over but the key and the chain head.
    Steward restarted =
        Steward.builder(SigningKey.fromSeed(new byte[32]))
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(ReferenceEngine.builder().build())
            .chainHead(head)
            .build();
    assertThat(restarted.opening(GENERATION.id())).isEqualTo(first.opening(GENERATION.id()));
    Disclosure d = restarted.disclose(Jcr1.open(r.envelope()).receipt(), PROMPT, r.tokens());
    assertThatCode(() -> d.verify(r.receipt())).doesNotThrowAnyException();
  }

  @Test
  void anotherSteward_cannotOpen() throws Exception {
    ServeResult r = steward().serve(GENERATION, PROMPT);
    Steward other =
        Steward.builder(
                SigningKey.fromSeed(
                    new byte[] {
                      1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                    }))
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(ReferenceEngine.builder().build())
            .build();
    assertThatThrownBy(() -> other.disclose(r, PROMPT))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.NOT_OPENED));
  }
}
