package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.openai.OpenAiServer;
import org.meshjava.steward.Steward;

/**
 * Regression guard: nothing failed when {@code mesh serve} stopped handing one of its config's time
 * limits to the server (the line passing {@code "delivery_timeout_s"} on, or any beside it). Each
 * limit is set here to a value of its own, none a default, and read back from the built server.
 */
class ServeTimeLimitsTest {
  @TempDir Path dir;

  @Test
  void everyTimeLimitOfTheConfig_reachesTheServer() throws Exception {
    Path file = dir.resolve("mesh.json");
    Files.writeString(
        file,
        """
        {"body_deadline_s": 11, "header_deadline_s": 12, "refused_body_drain_s": 13,
         "delivery_timeout_s": 14, "write_timeout_s": 41}""");
    ServeConfig c = ServeConfig.read(file);
    try (Steward s =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceSteward.engine())
            .build()) {
      assertThat(limits(s, c, null))
          .isEqualTo(
              new OpenAiServer.TimeLimits(
                  Duration.ofSeconds(12),
                  Duration.ofSeconds(11),
                  Duration.ofSeconds(13),
                  Duration.ofSeconds(46),
                  Duration.ofSeconds(41),
                  Duration.ofSeconds(14)));
      // The flag wins over the file; the idle timeout stays at its 30 s floor above a short one.
      assertThat(limits(s, c, 7L))
          .isEqualTo(
              new OpenAiServer.TimeLimits(
                  Duration.ofSeconds(12),
                  Duration.ofSeconds(11),
                  Duration.ofSeconds(13),
                  Duration.ofSeconds(30),
                  Duration.ofSeconds(7),
                  Duration.ofSeconds(14)));
    }
  }

  /** The limits of a server built for {@code s} as {@code mesh serve} builds it from {@code c}. */
  private static OpenAiServer.TimeLimits limits(
      Steward s, ServeConfig c, @Nullable Long writeTimeoutFlag) throws Exception {
    OpenAiServer.Builder ob = OpenAiServer.builder(s);
    ServeCommand.timeLimits(ob, c, writeTimeoutFlag);
    try (OpenAiServer server = ob.build()) {
      return server.timeLimits();
    }
  }
}
