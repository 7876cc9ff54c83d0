package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What an engine claims when it says nothing (§5): only an engine that declares itself
 * deterministic can have its serves re-executed against their receipts (§6.4), so a claim left out
 * must read as "samples", never as "repeats".
 */
class ServingEngineDefaultsTest {

  /** Implements only what an engine must; every other answer is the interface's default. */
  private static final class SaysNothing implements ServingEngine {
    @Override
    public String name() {
      return "plain";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("plain");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F1;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      throw new UnsupportedOperationException("never served here");
    }
  }

  @Test
  void anEngineThatDoesNotDeclareDeterminism_isTakenToSample() {
    assertThat(new SaysNothing().deterministic()).isFalse();
  }
}
