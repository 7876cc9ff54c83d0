package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Opening;

/** §6.4 replay: exactly one verdict, and never a divergence it cannot attribute. */
class ReplayTest {
  static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  static final TokenSequence PROMPT = TokenSequence.of(11, 12, 13, 14);
  static final ServeRequest REQUEST =
      ServeRequest.generation(
          ContentId.ofBytes(new byte[] {1}), 4, new ServeBounds(12, Fidelity.F1, 100_000));
  static final WeightsBinding WEIGHTS =
      new WeightsBinding(ContentId.ofBytes(new byte[] {5}), "fp32");

  /** One sealed serve: its steward, result, opening and honest disclosure. */
  record Sealed(Steward steward, ServeResult result, Opening opening, Disclosure disclosure) {
    MeshReceipt receipt() {
      return result.receipt();
    }
  }

  static Sealed serve(ServingEngine engine) throws Exception {
    Steward s =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(engine)
            .build();
    ServeResult r = s.serve(REQUEST, PROMPT);
    return new Sealed(s, r, s.opening(REQUEST.id()), s.disclose(r, PROMPT));
  }

  static ClaimsEngine honest() {
    return ClaimsEngine.over(ReferenceEngine.builder().weights(WEIGHTS).build());
  }

  static ReplayVerdict replay(Sealed s, ServingEngine engine, Optional<Disclosure> disclosed) {
    return Replayer.replay(
        new ReplayInputs(s.receipt(), REQUEST, PROMPT, s.opening(), disclosed), engine);
  }

  static void notReplayable(ReplayVerdict v, ReplayVerdict.Reason reason) {
    assertThat(v)
        .isInstanceOfSatisfying(
            ReplayVerdict.NotReplayable.class, n -> assertThat(n.reason()).isEqualTo(reason));
  }

  @Test
  void deterministicReplay_verifies() throws Exception {
    Sealed s = serve(honest());
    assertThat(replay(s, honest(), Optional.empty())).isEqualTo(new ReplayVerdict.Verified());
    assertThat(replay(s, honest(), Optional.of(s.disclosure())))
        .isEqualTo(new ReplayVerdict.Verified());
  }

  @Test
  void replay_locatesADrift_whenTheHonestOutputIsDisclosed() throws Exception {
    Sealed s = serve(honest());
    for (int at : new int[] {0, 5, 11}) {
      ReplayVerdict v =
          replay(s, honest().output(ClaimsEngine.drift(at, false)), Optional.of(s.disclosure()));
      assertThat(v)
          .isInstanceOfSatisfying(
              ReplayVerdict.Diverged.class,
              d -> {
                assertThat(d.firstDifference()).isEqualTo(at);
                assertThat(d.disclosed()).isEqualTo(s.result().tokens());
              });
    }
  }

  @Test
  void replay_locatesADrift_atTheShorterLength_whenOneOutputIsAPrefix() throws Exception {
    Sealed s = serve(honest());
    ReplayVerdict v =
        replay(s, honest().output(ClaimsEngine.drift(7, true)), Optional.of(s.disclosure()));
    assertThat(v)
        .isInstanceOfSatisfying(
            ReplayVerdict.Diverged.class, d -> assertThat(d.firstDifference()).isEqualTo(7));
  }

  @Test
  void replay_servedWithADriftedEngine_divergesAgainstTheHonestEngine() throws Exception {
    // The serve itself was the faulty one; the replay on a correct engine names where.
    Sealed s = serve(honest().output(ClaimsEngine.drift(3, false)));
    ReplayVerdict v = replay(s, honest(), Optional.of(s.disclosure()));
    assertThat(v)
        .isInstanceOfSatisfying(
            ReplayVerdict.Diverged.class, d -> assertThat(d.firstDifference()).isEqualTo(3));
  }

  @Test
  void mismatch_withNothingDisclosed_isNotAttributed() throws Exception {
    Sealed s = serve(honest());
    notReplayable(
        replay(s, honest().output(ClaimsEngine.drift(2, false)), Optional.empty()),
        ReplayVerdict.Reason.UNATTRIBUTABLE_MISMATCH);
  }

  @Test
  void wrongPayload_withTheHonestOutputDisclosed_isNotAttributed() throws Exception {
    Sealed s = serve(honest());
    // The replayer runs on another payload: the re-run differs, but the disclosure opens only on
    // the sealed payload, so the mismatch may be the replayer's own.
    ReplayVerdict v =
        Replayer.replay(
            new ReplayInputs(s.receipt(), REQUEST, TokenSequence.of(11, 12, 13, 15), s.opening())
                .withDisclosure(s.disclosure()),
            honest());
    notReplayable(v, ReplayVerdict.Reason.UNATTRIBUTABLE_MISMATCH);
  }

  @Test
  void wrongOpening_isNotAttributed_evenWithTheHonestDisclosure() throws Exception {
    Sealed s = serve(honest());
    Opening wrong = Opening.of(new byte[32]);
    ReplayVerdict v =
        Replayer.replay(
            new ReplayInputs(s.receipt(), REQUEST, PROMPT, wrong).withDisclosure(s.disclosure()),
            honest());
    notReplayable(v, ReplayVerdict.Reason.UNATTRIBUTABLE_MISMATCH);
  }

  @Test
  void disclosureThatDoesNotOpen_isNotAttributed() throws Exception {
    Sealed s = serve(honest());
    Disclosure forged =
        new Disclosure(s.opening(), s.disclosure().payloadDigest(), TokenSequence.of(1, 2, 3));
    notReplayable(
        replay(s, honest().output(ClaimsEngine.drift(2, false)), Optional.of(forged)),
        ReplayVerdict.Reason.UNATTRIBUTABLE_MISMATCH);
  }

  @Test
  void samplingEngine_isNotReplayable() throws Exception {
    Sealed s = serve(honest());
    notReplayable(
        replay(s, honest().sampling(), Optional.of(s.disclosure())),
        ReplayVerdict.Reason.SAMPLING_ENGINE);
  }

  @Test
  void otherBackendOrRecipe_isNotReplayable() throws Exception {
    Sealed s = serve(honest());
    notReplayable(
        replay(s, honest().named("elsewhere"), Optional.empty()),
        ReplayVerdict.Reason.OTHER_BACKEND);
    notReplayable(
        replay(s, honest().recipe(Recipe.of("reference").with("lora")), Optional.empty()),
        ReplayVerdict.Reason.OTHER_BACKEND);
  }

  @Test
  void otherWeightsOrPrecision_isNotReplayable_whenTheReceiptBoundWeights() throws Exception {
    Sealed s = serve(honest());
    assertThat(s.receipt().weights()).contains(WEIGHTS);
    notReplayable(
        replay(
            s,
            honest()
                .weights(
                    Optional.of(new WeightsBinding(ContentId.ofBytes(new byte[] {6}), "fp32"))),
            Optional.empty()),
        ReplayVerdict.Reason.OTHER_WEIGHTS);
    notReplayable(
        replay(
            s,
            honest().weights(Optional.of(new WeightsBinding(WEIGHTS.digest(), "bf16"))),
            Optional.empty()),
        ReplayVerdict.Reason.OTHER_WEIGHTS);
    notReplayable(
        replay(s, honest().weights(Optional.empty()), Optional.empty()),
        ReplayVerdict.Reason.OTHER_WEIGHTS);
  }

  @Test
  void receiptBoundByNameAlone_replaysOnAnyWeights() throws Exception {
    Sealed s = serve(ClaimsEngine.over(ReferenceEngine.builder().build()));
    assertThat(s.receipt().weights()).isEmpty();
    assertThat(replay(s, honest(), Optional.empty())).isEqualTo(new ReplayVerdict.Verified());
  }

  @Test
  void otherRequest_isNotReplayable() throws Exception {
    Sealed s = serve(honest());
    ServeRequest other =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 4, new ServeBounds(13, Fidelity.F1, 100_000));
    notReplayable(
        Replayer.replay(
            new ReplayInputs(s.receipt(), other, PROMPT, s.opening())
                .withDisclosure(s.disclosure()),
            honest()),
        ReplayVerdict.Reason.OTHER_REQUEST);
  }

  @Test
  void decision_hasNoCommitment_andIsNotReplayable() throws Exception {
    Steward st =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(honest())
            .build();
    ServeRequest d = DecisionServeTest.request(0, 100_000);
    ServeResult r = st.serve(d, DecisionServeTest.PROMPT, DecisionServeTest.QUESTIONS);
    notReplayable(
        Replayer.replay(
            new ReplayInputs(r.receipt(), d, DecisionServeTest.PROMPT, st.opening(d.id())),
            honest()),
        ReplayVerdict.Reason.NO_COMMITMENT);
  }

  @Test
  void failingEngine_isNotReplayable() throws Exception {
    Sealed s = serve(honest());
    notReplayable(
        replay(s, honest().failing(), Optional.of(s.disclosure())),
        ReplayVerdict.Reason.ENGINE_FAILED);
  }

  @Test
  void replay_sealsNothing() throws Exception {
    Sealed s = serve(honest());
    ChainHead head = s.steward().head();
    replay(s, honest(), Optional.of(s.disclosure()));
    replay(s, honest().output(ClaimsEngine.drift(1, false)), Optional.of(s.disclosure()));
    assertThat(s.steward().head()).isEqualTo(head);
  }

  @Test
  void firstDifference_comparesTokensInOrder() {
    assertThat(Replayer.firstDifference(TokenSequence.of(1, 2, 3), TokenSequence.of(1, 2, 4)))
        .isEqualTo(2);
    assertThat(Replayer.firstDifference(TokenSequence.of(1, 2), TokenSequence.of(1, 2, 4)))
        .isEqualTo(2);
    assertThat(Replayer.firstDifference(TokenSequence.of(), TokenSequence.of(1))).isZero();
    assertThat(Replayer.firstDifference(TokenSequence.of(9), TokenSequence.of(1))).isZero();
  }

  @Test
  void weightsThatChangeDuringTheRerun_areNotReplayable() throws Exception {
    Sealed s = serve(honest());
    ClaimsEngine inner = honest();
    java.util.concurrent.atomic.AtomicBoolean served =
        new java.util.concurrent.atomic.AtomicBoolean();
    ServingEngine swapping =
        new ServingEngine() {
          @Override
          public String name() {
            return inner.name();
          }

          @Override
          public Recipe recipe() {
            return inner.recipe();
          }

          @Override
          public Fidelity fidelity() {
            return inner.fidelity();
          }

          @Override
          public org.meshjava.core.CostProfile costProfile() {
            return inner.costProfile();
          }

          @Override
          public boolean deterministic() {
            return true;
          }

          @Override
          public Optional<WeightsBinding> weights() {
            return served.get()
                ? Optional.of(new WeightsBinding(WEIGHTS.digest(), "int8"))
                : Optional.of(WEIGHTS);
          }

          @Override
          public org.meshjava.core.EngineResult serve(ServeRequest request, TokenSequence prompt)
              throws org.meshjava.core.EngineException {
            served.set(true);
            return inner.serve(request, prompt);
          }
        };
    notReplayable(
        replay(s, swapping, Optional.of(s.disclosure())), ReplayVerdict.Reason.OTHER_WEIGHTS);
  }

  @Test
  void replay_reServesThroughTheFormAStewardServesWith_handedTheRequestAndItsId() throws Exception {
    Sealed s = serve(honest());
    List<ContentId> handed = new ArrayList<>();
    ServingEngine keeping =
        new ForwardingEngine(honest()) {
          @Override
          public EngineResult serve(IdentifiedRequest request, TokenSequence prompt)
              throws EngineException {
            handed.add(request.id());
            return delegate().serve(request, prompt);
          }
        };
    assertThat(replay(s, keeping, Optional.empty())).isEqualTo(new ReplayVerdict.Verified());
    assertThat(handed).containsExactly(REQUEST.id());
  }
}
