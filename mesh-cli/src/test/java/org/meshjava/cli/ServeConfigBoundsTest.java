package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.openai.OpenAiServer;

/**
 * Regression guard: nothing failed when {@code mesh serve} stopped handing one of its
 * configuration's server bounds to the server ({@code "max_connections"}, {@code
 * "max_buffered_body_bytes"}, {@code "refused_body_drain_bytes"}, and the time limits, whose test
 * called {@link ServeCommand#timeLimits} itself, so that its call site could go unseen). Each is
 * set here in a configuration file to a value of its own, none a default, and read back from the
 * server {@code mesh serve} built from it ({@link ServeCommand#SERVER_BUILT}), whose start is then
 * stopped: no request is served.
 */
class ServeConfigBoundsTest {
  @TempDir Path dir;

  /** Why the hook stops the start: the server was built and read. */
  private static final String READ = "the server was read";

  @Test
  void everySizeBoundOfTheConfig_reachesTheServerThatServeBuilds() throws Exception {
    OpenAiServer server =
        built(
            """
            {"default_decision_engine": false, "max_connections": 77,
             "max_buffered_body_bytes": 123456789, "refused_body_drain_bytes": 4321,
             "max_body_bytes": 65432}""");
    assertThat(server.sizeLimits())
        .isEqualTo(new OpenAiServer.SizeLimits(65_432, 123_456_789, 4321, 77));
  }

  @Test
  void everyTimeLimitOfTheConfig_reachesTheServerThatServeBuilds() throws Exception {
    OpenAiServer server =
        built(
            """
            {"default_decision_engine": false, "body_deadline_s": 11, "header_deadline_s": 12,
             "refused_body_drain_s": 13, "delivery_timeout_s": 14, "write_timeout_s": 41}""");
    assertThat(server.timeLimits())
        .isEqualTo(
            new OpenAiServer.TimeLimits(
                Duration.ofSeconds(12),
                Duration.ofSeconds(11),
                Duration.ofSeconds(13),
                Duration.ofSeconds(46),
                Duration.ofSeconds(41),
                Duration.ofSeconds(14)));
  }

  /**
   * The server {@code mesh serve --config FILE} builds from {@code json}, read before it starts;
   * the start is then failed by the hook.
   */
  private OpenAiServer built(String json) throws Exception {
    Path config = Files.writeString(dir.resolve("mesh.json"), json);
    AtomicReference<@Nullable OpenAiServer> seen = new AtomicReference<>();
    Run r =
        ScopedValue.where(
                ServeCommand.SERVER_BUILT,
                server -> {
                  seen.set(server);
                  throw new IllegalStateException(READ);
                })
            .call(
                () ->
                    MeshCommandTest.mesh(
                        "serve",
                        "--config",
                        config.toString(),
                        "--meter",
                        "estimator",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0"));
    OpenAiServer server = seen.get();
    assertThat(server).as("the server was not built: %s", r.err()).isNotNull();
    assertThat(r.err()).contains(READ);
    return server;
  }
}
