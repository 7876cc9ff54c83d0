package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * What {@code ServeAbTiming} times is a served request: the worker's serve is answered 200 and
 * rendered, again and again on one steward, so a build that refused it would stop the run rather
 * than time a refusal.
 */
class ServeAbWorkerTest {
  @Test
  void aReferenceServe_isAnswered200AndRendered_everyTime() throws Exception {
    try (ServeAbWorker w = ServeAbWorker.open("reference", "http://127.0.0.1:1/v1")) {
      for (int i = 0; i < 3; i++) {
        w.run();
        assertThat(w.replyBytes()).isGreaterThan(500);
      }
    }
  }

  @Test
  void grantedServes_eachUnderAFreshPresentation_areAnswered200() throws Exception {
    try (ServeAbWorker w = ServeAbWorker.open("granted", "http://127.0.0.1:1/v1")) {
      for (int batch = 0; batch < 2; batch++) {
        w.prepare(2);
        for (int i = 0; i < 2; i++) {
          w.run();
          assertThat(w.replyBytes()).isGreaterThan(500);
        }
      }
    }
  }

  @Test
  void anUnknownScenario_isRefused() {
    assertThatThrownBy(() -> ServeAbWorker.open("streamed", "http://127.0.0.1:1/v1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown scenario streamed");
  }
}
