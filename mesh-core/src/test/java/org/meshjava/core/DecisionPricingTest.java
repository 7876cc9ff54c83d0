package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The decision estimate of §4 and §3.6, and the upstream defect it fixes, as invariants. */
class DecisionPricingTest {
  private static final ContentId PROMPT = ContentId.ofBytes(new byte[] {1});

  private static ServeRequest decision(
      long promptTokens, long maxTokens, long questions, long options) {
    return ServeRequest.decision(
        PROMPT,
        promptTokens,
        new ServeBounds(maxTokens, Fidelity.F1, 1_000_000),
        new DecisionShape(questions, options, 0));
  }

  /** Upstream defect: a decision was priced for prompt_tokens + max_tokens. */
  @Test
  void estimate_ofDecision_neverIncludesMaxTokens() {
    long seed = new Random().nextLong();
    Random r = new Random(seed);
    for (int i = 0; i < 500; i++) {
      CostProfile p = new CostProfile(r.nextInt(10_000), r.nextInt(10_000));
      long prompt = r.nextInt(100_000);
      long q = 1 + r.nextInt(10);
      long options = q + r.nextInt(2000);
      long a = p.estimate(decision(prompt, 0, q, options));
      long b = p.estimate(decision(prompt, r.nextInt(1 << 30), q, options));
      assertThat(b).as("seed %d case %d", seed, i).isEqualTo(a);
      assertThat(a)
          .as("seed %d case %d", seed, i)
          .isEqualTo(p.ujPerToken() * prompt + p.ujPerOptionScored() * options);
    }
  }

  @Test
  void estimate_ofDecision_isTokenRateOnPromptPlusOptionRateOnOptions() {
    CostProfile p = CostProfile.perToken(100).withOptionCost(40);
    assertThat(p.estimate(decision(13, 256, 2, 7))).isEqualTo(100 * 13 + 40 * 7);
  }

  @Test
  void estimate_ofGeneration_includesMaxTokens() {
    CostProfile p = CostProfile.perToken(100).withOptionCost(40);
    ServeRequest g = ServeRequest.generation(PROMPT, 9, new ServeBounds(16, Fidelity.F1, 10_000));
    assertThat(p.estimate(g)).isEqualTo(100 * (9 + 16));
  }

  @Test
  void estimate_withNoOptionCost_reproducesTheTokenOnlyModel() {
    CostProfile p = CostProfile.perToken(70);
    assertThat(p.estimate(decision(50, 4096, 1, 2))).isEqualTo(70 * 50);
    assertThat(p.estimate(decision(50, 4096, 1, 200))).isEqualTo(70 * 50);
  }

  @Test
  void estimate_followsTheSchema_twentyOptionsCostMoreThanTwo() {
    CostProfile p = CostProfile.perToken(70).withOptionCost(5);
    assertThat(p.estimate(decision(50, 0, 1, 20)) - p.estimate(decision(50, 0, 1, 2)))
        .isEqualTo(5 * 18);
  }

  @Test
  void estimate_saturatesInsteadOfOverflowing() {
    CostProfile p = new CostProfile(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2);
    assertThat(p.estimate(decision(4, 0, 1, 4))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void estimateServed_ofDecision_countsOptionsAtTheOptionRate() {
    CostProfile p = CostProfile.perToken(100).withOptionCost(40);
    ServeOutcome o =
        new ServeOutcome(
            13,
            0,
            0,
            0,
            0,
            0,
            java.util.Optional.empty(),
            java.util.Optional.of(new DecisionShape(2, 7, 11)));
    assertThat(p.estimateServed(o)).isEqualTo(100 * 13 + 40 * 7);
  }

  @Test
  void estimateServed_ofGeneration_countsTokensInAndOut() {
    CostProfile p = CostProfile.perToken(100).withOptionCost(40);
    assertThat(p.estimateServed(ServeOutcome.greedy(9, 16))).isEqualTo(100 * (9 + 16));
  }

  @Test
  void estimate_ofAFreeDecision_isZero() {
    assertThat(new CostProfile(0, 0).estimate(decision(0, 4096, 1, 2))).isZero();
    assertThat(new CostProfile(0, 0).estimateServed(ServeOutcome.greedy(0, 0))).isZero();
  }
}
