package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.FidelityReport;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.internal.SignedCores;

/**
 * §3.2.1 and §3.6 at seal time: fidelity_met rests on the delivered level, an overclaim is refused
 * rather than clamped, and a weights digest computed from a model directory reaches the receipt.
 */
class ClaimsAtSealTest {
  static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  static final TokenSequence PROMPT = TokenSequence.of(1, 2);

  static ServeRequest floor(Fidelity f) {
    return ServeRequest.generation(
        ContentId.ofBytes(new byte[] {1}), 2, new ServeBounds(4, f, 100_000));
  }

  static MeshReceipt serve(ServingEngine e, Fidelity floor) throws ServeException {
    return Steward.builder(KEY)
        .chainHead(ChainHead.GENESIS)
        .meter(new org.meshjava.energy.EstimatorMeter())
        .backend(e)
        .build()
        .serve(floor(floor), PROMPT)
        .receipt();
  }

  @Test
  void fidelityMet_followsTheDeliveredLevel_notTheAdvertisement() throws Exception {
    ReferenceEngine degraded =
        ReferenceEngine.builder().fidelity(Fidelity.F3).delivers(Fidelity.F1).build();
    MeshReceipt r = serve(degraded, Fidelity.F2);
    assertThat(r.fidelityMet()).isFalse();
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F3, Fidelity.F1));
    assertThat(serve(degraded, Fidelity.F1).fidelityMet()).isTrue();
  }

  @Test
  void fidelityMet_restsOnTheAdvertisement_whenNothingIsDelivered() throws Exception {
    MeshReceipt r = serve(ReferenceEngine.builder().fidelity(Fidelity.F3).build(), Fidelity.F3);
    assertThat(r.fidelityMet()).isTrue();
    assertThat(r.fidelityReport()).isEmpty();
  }

  @Test
  void serve_whenDeliveredAboveAdvertised_refuses() {
    Steward s =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(ReferenceEngine.builder().fidelity(Fidelity.F2).delivers(Fidelity.F3).build())
            .build();
    assertThatThrownBy(() -> s.serve(floor(Fidelity.F1), PROMPT))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.FIDELITY_OVERCLAIM));
    assertThat(s.head()).isEqualTo(ChainHead.GENESIS);
  }

  @Test
  void serve_withAModelDirectoryDigest_bindsDigestAndPrecisionTogether(@TempDir Path dir)
      throws Exception {
    Files.writeString(dir.resolve("config.json"), "{}");
    Files.write(dir.resolve("model.safetensors"), new byte[] {1, 2, 3});
    WeightsBinding binding = ModelDirectory.digest(dir).bind("bf16");
    MeshReceipt r = serve(ReferenceEngine.builder().weights(binding).build(), Fidelity.F1);
    assertThat(r.weights()).contains(binding);
    assertThat(SignedCores.encode(r).get("weights_digest")).isPresent();
    assertThat(SignedCores.encode(r).get("precision")).isPresent();
  }

  @Test
  void serve_whenDeliveredEqualsAdvertised_seals() throws Exception {
    MeshReceipt r =
        serve(
            ReferenceEngine.builder().fidelity(Fidelity.F2).reportsDelivered(true).build(),
            Fidelity.F2);
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F2, Fidelity.F2));
    assertThat(r.fidelityMet()).isTrue();
  }

  @Test
  void fidelityMet_restsOnTheAdmittedRating_whenTheRatingDropsMidServe() throws Exception {
    MeshReceipt r =
        serve(
            new RatingDropsMidServe(
                ReferenceEngine.builder().fidelity(Fidelity.F3).build(), Fidelity.F1),
            Fidelity.F3);
    assertThat(r.fidelityMet()).isTrue();
    assertThat(r.fidelityReport()).isEmpty();
  }

  @Test
  void fidelityAdvertised_isTheAdmittedRating_whenTheRatingDropsMidServe() throws Exception {
    MeshReceipt r =
        serve(
            new RatingDropsMidServe(
                ReferenceEngine.builder().fidelity(Fidelity.F3).delivers(Fidelity.F1).build(),
                Fidelity.F1),
            Fidelity.F2);
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F3, Fidelity.F1));
    assertThat(r.fidelityMet()).isFalse();
  }

  @Test
  void delivered_isCheckedAgainstTheAdmittedRating_notOneReadAfterTheWork() throws Exception {
    MeshReceipt r =
        serve(
            new RatingDropsMidServe(
                ReferenceEngine.builder().fidelity(Fidelity.F3).delivers(Fidelity.F2).build(),
                Fidelity.F1),
            Fidelity.F2);
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F3, Fidelity.F2));
    assertThat(r.fidelityMet()).isTrue();
  }
}
