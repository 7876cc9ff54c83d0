package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.steward.Steward;

/**
 * What {@code GrantedServeBenchmark} and {@code GrantedServeTiming} time is a granted serve: their
 * bodies are served (200), and each only once (its presentation is then spent), so a benchmark that
 * sent one twice would fail rather than time a refusal.
 */
class GrantedBodiesTest {
  @Test
  void aGrantedBody_isServedOnce_withAReceiptUnderItsGrant() throws Exception {
    for (int links = 1; links <= 2; links++) {
      try (Steward steward = GrantedBodies.steward()) {
        Endpoints endpoints = GrantedBodies.endpoints(steward);
        byte[] body = new GrantedBodies(steward.identity(), links).next();
        assertThat(GrantedBodies.serve(endpoints, body).reply().status()).isEqualTo(200);
        assertThatThrownBy(() -> GrantedBodies.serve(endpoints, body))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("not served")
            .hasMessageContaining("spent");
      }
    }
  }
}
