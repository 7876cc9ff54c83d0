package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a backend takes: the whole u32 range by default, the tighter of two limits. */
class ServeLimitsTest {
  private static final ContentId P = ContentId.ofBytes(new byte[] {1});

  @Test
  void none_takesTheWholeU32RangeAndAnyCeiling() {
    ServeRequest top =
        ServeRequest.generation(
            P, 0xFFFF_FFFFL, new ServeBounds(0xFFFF_FFFFL, Fidelity.F0, Long.MAX_VALUE));
    assertThat(ServeLimits.NONE.refusal(top)).isEmpty();
  }

  @Test
  void refusal_namesTheFirstFieldOverItsLimit() {
    ServeLimits l = new ServeLimits(10, 20, 30);
    assertThat(l.refusal(ServeRequest.generation(P, 11, new ServeBounds(21, Fidelity.F0, 31))))
        .contains("prompt_tokens 11 > limit 10");
    assertThat(
            l.refusal(
                ServeRequest.generation(P, 10, new ServeBounds(3_000_000_000L, Fidelity.F0, 31))))
        .contains("max_tokens 3000000000 > limit 20");
    assertThat(l.refusal(ServeRequest.generation(P, 10, new ServeBounds(20, Fidelity.F0, 31))))
        .contains("joule_ceiling_uj 31 > limit 30");
    assertThat(l.refusal(ServeRequest.generation(P, 10, new ServeBounds(20, Fidelity.F0, 30))))
        .isEmpty();
    // A decision emits no tokens: the output limit does not apply to it.
    assertThat(
            l.refusal(
                ServeRequest.decision(
                    P,
                    10,
                    new ServeBounds(4_000_000_000L, Fidelity.F0, 30),
                    new DecisionShape(1, 2, 0))))
        .isEmpty();
  }

  @Test
  void tighter_takesTheSmallerOfEach_andCountsAreU32() {
    assertThat(new ServeLimits(1, 50, 7).tighter(new ServeLimits(9, 5, 70)))
        .isEqualTo(new ServeLimits(1, 5, 7));
    assertThatThrownBy(() -> ServeLimits.NONE.withMaxOutputTokens(0x1_0000_0000L))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ServeLimits.NONE.withMaxJouleCeilingUj(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
