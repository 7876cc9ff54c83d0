package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The router's estimate (§4) and its decision variant (§3.6). */
class CostProfileTest {
  private static final ContentId PROMPT = ContentId.ofBytes(new byte[0]);

  private static ServeRequest generation(long prompt, long max) {
    return ServeRequest.generation(
        PROMPT, prompt, new ServeBounds(max, Fidelity.F0, Long.MAX_VALUE));
  }

  private static ServeRequest decision(long prompt, long max, long options) {
    return ServeRequest.decision(
        PROMPT,
        prompt,
        new ServeBounds(max, Fidelity.F0, Long.MAX_VALUE),
        new DecisionShape(1, options, 0));
  }

  @Test
  void estimate_forAGeneration_isRateTimesPromptPlusMaxTokens() {
    assertThat(CostProfile.perToken(7).estimate(generation(10, 20))).isEqualTo(7 * 30);
    assertThat(CostProfile.perToken(7).withOptionCost(1000).estimate(generation(10, 20)))
        .as("an option cost never touches a generation")
        .isEqualTo(7 * 30);
  }

  @Test
  void estimateOverAPayload_pricesThePayloadInPlaceOfTheDeclaredPromptTokens() {
    CostProfile p = CostProfile.perToken(7).withOptionCost(100);
    assertThat(p.estimate(generation(0, 20), 1_000)).isEqualTo(7 * 1_020);
    assertThat(p.estimate(generation(10, 20), 10)).isEqualTo(p.estimate(generation(10, 20)));
    assertThat(p.estimate(decision(132, 256, 3), 200)).isEqualTo(7 * 200 + 100 * 3);
    assertThatThrownBy(() -> p.estimate(generation(0, 20), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void estimate_forADecision_excludesMaxTokens_andAddsPerOptionCost() {
    CostProfile p = CostProfile.perToken(7).withOptionCost(100);
    assertThat(p.estimate(decision(132, 256, 3))).isEqualTo(7 * 132 + 100 * 3);
    // max_tokens does not move a decision's estimate at all.
    assertThat(p.estimate(decision(132, 0, 3))).isEqualTo(p.estimate(decision(132, 4096, 3)));
  }

  @Test
  void estimate_forADecision_followsTheSchema() {
    CostProfile p = CostProfile.perToken(7).withOptionCost(100);
    assertThat(p.estimate(decision(10, 0, 20))).isGreaterThan(p.estimate(decision(10, 0, 2)));
  }

  @Test
  void zeroOptionCost_reproducesTheTokenOnlyModel() {
    assertThat(CostProfile.perToken(7).withOptionCost(0)).isEqualTo(CostProfile.perToken(7));
    assertThat(CostProfile.perToken(7).estimate(decision(132, 256, 20))).isEqualTo(7 * 132);
  }

  @Test
  void estimate_saturatesInsteadOfOverflowing() {
    CostProfile huge = new CostProfile(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2);
    assertThat(huge.estimate(generation(2, 1))).isEqualTo(Long.MAX_VALUE);
    assertThat(huge.estimate(decision(1, 0, 2))).isEqualTo(Long.MAX_VALUE);
    CostProfile big = CostProfile.perToken(1L << 40);
    assertThat(big.estimate(generation(0xFFFF_FFFFL, 0xFFFF_FFFFL))).isEqualTo(Long.MAX_VALUE);
    // Just below the edge it is exact.
    CostProfile edge = CostProfile.perToken(Long.MAX_VALUE / 3);
    assertThat(edge.estimate(generation(1, 2))).isEqualTo(Long.MAX_VALUE / 3 * 3);
  }

  @Test
  void estimateServed_countsTokensBothWays_andOptionsForADecision() {
    CostProfile p = CostProfile.perToken(5).withOptionCost(11);
    assertThat(p.estimateServed(ServeOutcome.greedy(10, 4))).isEqualTo(5 * 14);
    ServeOutcome answered =
        new ServeOutcome(
            132, 0, 0, 0, 0, 0, Optional.empty(), Optional.of(new DecisionShape(3, 9, 121)));
    assertThat(p.estimateServed(answered)).isEqualTo(5 * 132 + 11 * 9);
    assertThat(new CostProfile(Long.MAX_VALUE, 1).estimateServed(ServeOutcome.greedy(1, 1)))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void negativeRates_areRefused() {
    assertThatThrownBy(() -> CostProfile.perToken(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CostProfile.perToken(1).withOptionCost(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
