package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An operator's cap on one limit (SPEC.md 60.5) leaves the other two as they were. */
class ServeLimitsCopiesTest {

  @Test
  void eachCopy_changesItsOneLimit() {
    ServeLimits base = new ServeLimits(10, 20, 30);

    assertThat(base.withMaxPromptTokens(1)).isEqualTo(new ServeLimits(1, 20, 30));
    assertThat(base.withMaxOutputTokens(2)).isEqualTo(new ServeLimits(10, 2, 30));
    assertThat(base.withMaxJouleCeilingUj(3)).isEqualTo(new ServeLimits(10, 20, 3));
  }
}
