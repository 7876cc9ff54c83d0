package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * §3.3: the most energy a domain can draw in a span, past which an increment is a fault, not
 * energy. Its arithmetic at the edges: the smallest bounds it takes, a span that runs backwards,
 * saturation instead of overflow, and the margin over a published limit.
 */
class PowerBoundTest {
  @Test
  void theSmallestBounds_areTaken_andNoneSmaller() {
    assertThat(new PowerBound(1, 0).mostDrawnUj(1_000)).isEqualTo(1);
    assertThatThrownBy(() -> new PowerBound(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PowerBound(1, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mostDrawn_isWattsTimesTheSpanWithItsSlack_inMicrojoules() {
    PowerBound b = new PowerBound(3, 2_000);
    assertThat(b.mostDrawnUj(1_000_000)).isEqualTo(3L * 1_002_000 / 1_000);
    assertThat(b.mostDrawnUj(-5_000)).as("a span backwards counts as none").isEqualTo(6);
    assertThat(new PowerBound(1_000, 0).mostDrawnUj(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    long justFits = Long.MAX_VALUE / 1_000;
    assertThat(new PowerBound(1_000, 0).mostDrawnUj(justFits)).isEqualTo(justFits * 1_000 / 1_000);
    assertThat(new PowerBound(1_000, 0).mostDrawnUj(justFits + 1)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aSpanOfNoTimeOrBackwards_drawsOnlyTheSlack() {
    // At 1 kW a nanosecond is a microjoule, so a span taken as 1 ns instead of none would show.
    PowerBound noSlack = new PowerBound(1_000, 0);
    assertThat(noSlack.mostDrawnUj(0)).isZero();
    assertThat(noSlack.mostDrawnUj(-1)).isZero();
    assertThat(noSlack.mostDrawnUj(Long.MIN_VALUE)).isZero();
    assertThat(new PowerBound(1_000, 7).mostDrawnUj(-1)).isEqualTo(7);
  }

  @Test
  void aboveLimit_isTwiceThePublishedLimit_neverUnderTheFloor_andSaturates() {
    assertThat(PowerBound.aboveLimit(300, 100)).isEqualTo(600);
    assertThat(PowerBound.aboveLimit(300, 1_000)).isEqualTo(1_000);
    long half = Long.MAX_VALUE / 2;
    assertThat(PowerBound.aboveLimit(half, 1)).isEqualTo(half * 2);
    assertThat(PowerBound.aboveLimit(half + 1, 1)).isEqualTo(Long.MAX_VALUE);
  }
}
