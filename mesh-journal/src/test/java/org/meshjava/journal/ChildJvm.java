package org.meshjava.journal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.meshjava.journal.testing.ChildJava;

/**
 * A second process for the lock tests: an OS lock is the process's, so only another JVM shows what
 * a lock held elsewhere does. The child runs a main class of these tests ({@link ChildJava}) and
 * answers on its first line of output.
 */
final class ChildJvm {
  private ChildJvm() {}

  /** Starts {@code main} with {@code arg}; its standard error is dropped. */
  static Process start(Class<?> main, Path arg) throws Exception {
    return new ProcessBuilder(ChildJava.command(main, arg.toString()))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /** The child's first line of output, or {@code (no answer)} if it ended without one. */
  static String firstLine(Process p) throws Exception {
    BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    return Optional.ofNullable(r.readLine()).orElse("(no answer)");
  }
}
