package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.steward.Steward;

/**
 * A console request that meets a failure of foreign code (here a backend's {@code fidelity()}) is
 * answered 500 {@code internal_error} naming the request, and logged, even where the throwable's
 * own words throw when printed: logging it with its trace threw out of the catch that answers.
 */
class ConsoleInternalErrorTest {
  /**
   * A backend whose fidelity, once {@link #broken} is set, throws a throwable that cannot print.
   */
  private static final class Unprintable extends ForwardingEngine {
    final AtomicBoolean broken = new AtomicBoolean();

    Unprintable() {
      super(Fixture.reference("unprintable"));
    }

    @Override
    public Fidelity fidelity() {
      if (broken.get()) {
        throw new UnprintableException();
      }
      return super.fidelity();
    }
  }

  @Test
  void aForeignFailureWhoseWordsThrow_isStillThe500InternalError_logged() throws Exception {
    Unprintable engine = new Unprintable();
    Steward steward = Steward.ephemeral().meter(new EstimatorMeter()).backend(engine).build();
    try {
      ConsoleEndpoints console = new ConsoleEndpoints(steward, new ConsoleFeed(), true);
      engine.broken.set(true);
      AtomicReference<Reply> reply = new AtomicReference<>();
      String log =
          Fixture.stderrOf(
              () ->
                  reply.set(
                      console.handle(
                          "GET",
                          "/v1/mesh/status",
                          "",
                          Optional.of("localhost"),
                          Optional.of(InetAddress.getLoopbackAddress()),
                          "req_console_unprintable")));
      assertThat(reply.get().status()).isEqualTo(500);
      RenderedReply rendered =
          RenderedReply.of((Reply.Json) reply.get(), "req_console_unprintable");
      assertThat(new String(rendered.bytes(), StandardCharsets.UTF_8))
          .contains("\"code\":\"internal_error\"", "req_console_unprintable");
      assertThat(log)
          .contains(
              "req_console_unprintable",
              UnprintableException.class.getName(),
              "which cannot be printed");
    } finally {
      steward.close();
    }
  }
}
