package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * {@code mesh serve} run on a thread of the test's JVM until {@link #close()} interrupts it, as
 * SIGINT would: the command's own code path, without a child JVM's start-up.
 */
final class InProcessServe implements AutoCloseable {
  private static final Duration START_LIMIT = Duration.ofSeconds(30);

  private final Thread thread;
  private final AtomicReference<MeshCommandTest.@Nullable Run> run = new AtomicReference<>();
  private final int port;

  private InProcessServe(Path portFile, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("serve"));
    command.addAll(List.of(args));
    command.addAll(List.of("--port-file", portFile.toString()));
    this.thread = new Thread(() -> run.set(mesh(command.toArray(String[]::new))));
    thread.start();
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
      assertThat(System.nanoTime()).as("server did not start: %s", run.get()).isLessThan(deadline);
      Thread.sleep(20);
    }
    this.port = Integer.parseInt(Files.readString(portFile).strip());
  }

  /**
   * {@code args} after {@code --config DIR/mesh.json}, a configuration written there that serves
   * the embedded reference backends without the MiniLM decision engine ({@code
   * "default_decision_engine": false}). For a serve whose test routes nothing to MiniLM: loading it
   * was most of such a serve's start, seconds of the test's time.
   */
  static String[] withoutMiniLm(Path dir, String... args) throws java.io.IOException {
    Path config =
        Files.writeString(dir.resolve("mesh.json"), "{\"default_decision_engine\": false}");
    List<String> all = new ArrayList<>(List.of("--config", config.toString()));
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  /** Starts {@code mesh serve ARGS --port-file PORT_FILE} and waits until it listens. */
  static InProcessServe start(Path portFile, String... args) throws Exception {
    return new InProcessServe(portFile, args);
  }

  /** The bound port. */
  int port() {
    return port;
  }

  /** {@code http://127.0.0.1:port}. */
  URI base() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** What the command returned and printed; only after {@link #close()}. */
  MeshCommandTest.Run run() {
    MeshCommandTest.Run r = run.get();
    assertThat(r).as("mesh serve has not returned").isNotNull();
    return r;
  }

  /** Interrupts the command and waits up to 10 s for it to return. */
  @Override
  public void close() throws InterruptedException {
    thread.interrupt();
    thread.join(10_000);
  }
}
