package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The ordered fidelity scale of §3.2. */
class FidelityTest {

  @Test
  void levels_areZeroToFour_andRoundTrip() {
    for (int level = 0; level <= 4; level++) {
      assertThat(Fidelity.of(level).level()).isEqualTo(level);
      assertThat(Fidelity.of(level).name()).isEqualTo("F" + level);
    }
  }

  @Test
  void of_outsideZeroToFour_refuses() {
    for (long bad : new long[] {-1, 5, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32}) {
      assertThatThrownBy(() -> Fidelity.of(bad))
          .as("%d", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * The textual form the serve configuration, the Spring starter and a request's {@code
   * metadata.fidelity_floor} all read: the name or the level alone, ASCII only, nothing around it.
   */
  @Test
  void parse_takesTheNameOrTheLevel_andNothingElse() {
    for (Fidelity f : Fidelity.values()) {
      assertThat(Fidelity.parse(f.name())).hasValue(f);
      assertThat(Fidelity.parse(Integer.toString(f.level()))).hasValue(f);
    }
    for (String bad :
        new String[] {
          "", "F", "f2", "F5", "5", "-1", "F-1", "F02", "02", "FF2", " F2", "F2 ", "2\n", "F\u0662",
          "\uFF12", "F2F", "level2"
        }) {
      assertThat(Fidelity.parse(bad)).as("'%s'", bad).isEmpty();
    }
  }

  @Test
  void parse_ofNull_saysWhatWasNull() {
    assertThatThrownBy(() -> Fidelity.parse(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("the text of a fidelity level (F0-F4 or 0-4) is null");
  }

  @Test
  void meets_isAtLeast_notExactly() {
    assertThat(Fidelity.F3.meets(Fidelity.F2)).isTrue();
    assertThat(Fidelity.F2.meets(Fidelity.F2)).isTrue();
    assertThat(Fidelity.F1.meets(Fidelity.F2)).isFalse();
    assertThat(Fidelity.F0.meets(Fidelity.F0)).isTrue();
    assertThat(Fidelity.F4.meets(Fidelity.F0)).isTrue();
  }
}
