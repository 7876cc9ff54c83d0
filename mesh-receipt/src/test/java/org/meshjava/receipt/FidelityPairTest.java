package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;

/** §3.2.1 and §3.6: the pairs that appear together or not at all, and fidelity_met's basis. */
class FidelityPairTest {
  private static CborMap without(CborMap core, String key) {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : core.entries()) {
      if (!e.key().equals(new CborText(key))) {
        b.put(e.key(), e.value());
      }
    }
    return b.build();
  }

  private static MeshReceipt withBoth() {
    return ClaimsFixtures.base(ClaimsFixtures.REQUEST)
        .fidelityReport(Optional.of(new FidelityReport(Fidelity.F3, Fidelity.F2)))
        .weights(Optional.of(new WeightsBinding(ContentId.ofBytes(new byte[] {3}), "bf16")))
        .build();
  }

  @Test
  void fidelityReport_refusesDeliveredAboveAdvertised() {
    assertThatThrownBy(() -> new FidelityReport(Fidelity.F1, Fidelity.F2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new FidelityReport(Fidelity.F2, Fidelity.F2).delivered()).isEqualTo(Fidelity.F2);
  }

  @Test
  void fidelityMet_mustFollowTheDeliveredLevel() {
    MeshReceipt.Builder b =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .fidelityFloor(Fidelity.F3)
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F3, Fidelity.F2)));
    assertThatThrownBy(() -> b.fidelityMet(true).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(b.fidelityMet(false).build().fidelityMet()).isFalse();
    MeshReceipt.Builder exact =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .fidelityFloor(Fidelity.F2)
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F3, Fidelity.F2)));
    assertThatThrownBy(() -> exact.fidelityMet(false).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** {@code core} with {@code key} set to {@code value}, every other entry as it was. */
  private static CborMap with(CborMap core, String key, long value) {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : core.entries()) {
      b.put(e.key(), e.key().equals(new CborText(key)) ? CborInt.of(value) : e.value());
    }
    return b.build();
  }

  // Builds before the steward sealed the admitted rating read the engine's fidelity() after the
  // work; an engine whose rating dropped below the floor meanwhile got receipts of these two
  // shapes, signed and journalled. Refusing them now would leave those journals and receipts
  // unreadable, so they decode: the steward no longer seals them (ClaimsAtSealTest).

  @Test
  void signedCore_withAdvertisedBelowTheFloor_asEarlierBuildsSealedIt_stillDecodes()
      throws Exception {
    CborMap core =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .fidelityFloor(Fidelity.F2)
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F2, Fidelity.F2)))
            .build()
            .toSignedCore();
    MeshReceipt r = SignedCore.decode(with(with(core, "fidelity_floor", 3), "fidelity_met", 0));
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F2, Fidelity.F2));
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F3);
    assertThat(r.fidelityMet()).isFalse();
  }

  @Test
  void signedCore_withFidelityMetZeroAndNoPair_asEarlierBuildsSealedIt_stillDecodes()
      throws Exception {
    CborMap core = ClaimsFixtures.base(ClaimsFixtures.REQUEST).build().toSignedCore();
    MeshReceipt r = SignedCore.decode(with(core, "fidelity_met", 0));
    assertThat(r.fidelityReport()).isEmpty();
    assertThat(r.fidelityMet()).isFalse();
  }

  @Test
  void signedCore_carriesEachPairWhole_andDecodesIt() throws Exception {
    CborMap core = withBoth().toSignedCore();
    for (String k :
        new String[] {"fidelity_advertised", "fidelity_delivered", "weights_digest", "precision"}) {
      assertThat(core.get(new CborText(k))).as(k).isPresent();
    }
    assertThat(SignedCore.decode(core)).isEqualTo(withBoth());
    CborMap none = ClaimsFixtures.base(ClaimsFixtures.REQUEST).build().toSignedCore();
    for (String k :
        new String[] {"fidelity_advertised", "fidelity_delivered", "weights_digest", "precision"}) {
      assertThat(none.get(new CborText(k))).as(k).isEmpty();
    }
  }

  @Test
  void decode_refusesHalfAPair() {
    CborMap core = withBoth().toSignedCore();
    for (String k :
        new String[] {"fidelity_advertised", "fidelity_delivered", "weights_digest", "precision"}) {
      assertThatThrownBy(() -> SignedCore.decode(without(core, k)))
          .as(k)
          .isInstanceOfSatisfying(
              ReceiptException.class,
              e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT));
    }
  }

  @Test
  void decode_refusesDeliveredAboveAdvertised() {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : withBoth().toSignedCore().entries()) {
      if (!e.key().equals(new CborText("fidelity_delivered"))) {
        b.put(e.key(), e.value());
      }
    }
    b.put("fidelity_delivered", 4);
    assertThatThrownBy(() -> SignedCore.decode(b.build()))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT));
  }
}
