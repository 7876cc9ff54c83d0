package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The §3.3 coupling between provenance and measurement, enforced at construction. */
class EnergyTest {

  @Test
  void hwShunt_withoutMeasurement_isRefused() {
    assertThatThrownBy(() -> new Energy(OptionalLong.empty(), 10, Provenance.HwShunt))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HwShunt");
  }

  @Test
  void estimator_withMeasurement_isRefused() {
    assertThatThrownBy(() -> new Energy(OptionalLong.of(5), 10, Provenance.Estimator))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Estimator");
  }

  @Test
  void modelBased_allowsEitherForm() {
    assertThat(new Energy(OptionalLong.empty(), 10, Provenance.ModelBased).uj()).isEqualTo(10);
    assertThat(new Energy(OptionalLong.of(7), 10, Provenance.ModelBased).uj()).isEqualTo(7);
  }

  @Test
  void uj_prefersTheMeasurementOverTheEstimate() {
    assertThat(Energy.measured(3, 1000).uj()).isEqualTo(3);
    assertThat(Energy.measured(0, 1000).uj()).isZero(); // a zero reading is still a reading
    assertThat(Energy.estimated(1000).uj()).isEqualTo(1000);
    assertThat(Energy.measured(3, 1000).provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(Energy.estimated(1000).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void negativeFigures_areRefused() {
    assertThatThrownBy(() -> Energy.estimated(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Energy.measured(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Energy(OptionalLong.empty(), 0, null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void provenance_wireNames_areTheConstantNames_caseSensitive() {
    for (Provenance p : Provenance.values()) {
      assertThat(Provenance.fromWire(p.name())).isSameAs(p);
    }
    assertThat(Provenance.values())
        .extracting(Provenance::name)
        .containsExactly("HwShunt", "ModelBased", "Estimator");
    assertThatThrownBy(() -> Provenance.fromWire("hwshunt"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Provenance.fromWire("")).isInstanceOf(IllegalArgumentException.class);
  }
}
