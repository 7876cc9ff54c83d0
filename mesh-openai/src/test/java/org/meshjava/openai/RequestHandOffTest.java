package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * The selector hands each request to an idle pool thread through the pool's queue. With Jetty's
 * default pool it would instead wake a reserved thread to select in its place and run the request
 * itself, a wake and a park per request that cost CPU and bought nothing for handlers that all
 * block (mesh-bench/README.md, session 32).
 */
class RequestHandOffTest {

  @Test
  void servedRequests_leaveNoReservedThreadInTheRequestPool() {
    try (Fixture f = new Fixture()) {
      for (int i = 0; i < 8; i++) {
        assertThat(f.post("/v1/chat/completions", Fixture.chat("hand-off " + i)).status())
            .isEqualTo(200);
      }
      QueuedThreadPool pool = f.server.threadPool();
      assertThat(pool.getReservedThreads()).as("reserved threads configured").isZero();
      assertThat(pool.getCurrentReservedThreads()).as("reserved threads started").isZero();
    }
  }
}
