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

  @Test
  void fidelityAdvertised_belowTheFloor_isRefused() {
    // The router admits only a backend rated at or above the floor (§4).
    MeshReceipt.Builder b =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .fidelityFloor(Fidelity.F3)
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F2, Fidelity.F1)))
            .fidelityMet(false);
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fidelity_advertised F2 is below fidelity_floor F3");
  }

  @Test
  void fidelityMetZero_withoutADeliveredLevel_isRefused() {
    // Without the pair, fidelity_met rests on the admitted rating, which meets the floor (§3.2.1).
    MeshReceipt.Builder b = ClaimsFixtures.base(ClaimsFixtures.REQUEST).fidelityMet(false);
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fidelity_met is 0 with no delivered level");
    assertThat(b.fidelityMet(true).build().fidelityMet()).isTrue();
  }

  @Test
  void signedCore_withAdvertisedBelowTheFloor_decodesAsInconsistent() {
    CborMap core =
        ClaimsFixtures.base(ClaimsFixtures.REQUEST)
            .fidelityFloor(Fidelity.F2)
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F2, Fidelity.F2)))
            .build()
            .toSignedCore();
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : core.entries()) {
      // Floor F3 over delivered F2 makes fidelity_met 0, so only the admitted rating is wrong.
      if (e.key().equals(new CborText("fidelity_floor"))) {
        b.put(e.key(), CborInt.of(3));
      } else if (e.key().equals(new CborText("fidelity_met"))) {
        b.put(e.key(), CborInt.of(0));
      } else {
        b.put(e.key(), e.value());
      }
    }
    assertThatThrownBy(() -> SignedCore.decode(b.build()))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT);
              assertThat(e.getMessage()).contains("below fidelity_floor");
            });
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
