package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.published;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: a command named a FIFO that no program writes to (yet) waited to open it without a
 * word, forever, as if hung. It still waits (the FIFO opens once a writer comes, as for any Unix
 * tool), but says so on stderr after a moment, naming the file, and then reads what is written.
 */
class FifoInputTest {
  @TempDir Path tmp;

  /** Collects what is written, and opens {@link #said} once a line holding "waiting" is. */
  private static final class Watched extends Writer {
    final StringBuffer text = new StringBuffer();
    final CountDownLatch said = new CountDownLatch(1);

    @Override
    public void write(char[] buf, int off, int len) {
      text.append(buf, off, len);
      if (text.indexOf("waiting") >= 0) {
        said.countDown();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  static Path fifo(Path at) throws Exception {
    Process p = new ProcessBuilder("mkfifo", at.toString()).start();
    assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo is available");
    return at;
  }

  @Test
  void aFifoWithoutAWriter_isWaitedFor_aloud_thenRead() throws Exception {
    assumeTrue(!System.getProperty("os.name", "").startsWith("Windows"), "FIFOs are POSIX");
    Path fifo = fifo(tmp.resolve("envelopes"));
    Watched err = new Watched();
    StringWriter out = new StringWriter();
    CompletableFuture<Integer> code =
        CompletableFuture.supplyAsync(
            () ->
                Mesh.run(
                    new PrintWriter(out, true),
                    new PrintWriter(err, true),
                    "verify",
                    "--from-genesis",
                    fifo.toString()));
    boolean said;
    try {
      said = err.said.await(30, TimeUnit.SECONDS);
    } finally {
      // The writer comes: the command opens the FIFO and reads what it is given.
      try (OutputStream w = Files.newOutputStream(fifo)) {
        w.write(Files.readAllBytes(published("reference/envelope.hex")));
      }
    }
    assertThat(said).as("the command said it waits").isTrue();
    assertThat(code.get(60, TimeUnit.SECONDS)).as(err.text.toString()).isZero();
    assertThat(err.text.toString().strip())
        .isEqualTo(
            "mesh verify: waiting for a program to open "
                + fifo
                + " to write (it is not a regular file; a FIFO opens once written to); Ctrl-C"
                + " stops");
    assertThat(out.toString()).contains("verified 1 receipt,");
  }
}
