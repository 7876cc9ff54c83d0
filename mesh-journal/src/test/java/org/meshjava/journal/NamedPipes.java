package org.meshjava.journal;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Makes a named pipe for a test that puts one where the journal expects a file; a test on a
 * platform without {@code mkfifo} is skipped, not failed.
 */
final class NamedPipes {
  private NamedPipes() {}

  /** Makes a named pipe at {@code at}, or skips the calling test where none can be made. */
  static Path make(Path at) throws Exception {
    Process p = new ProcessBuilder("mkfifo", at.toString()).start();
    Assumptions.assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo");
    return at;
  }
}
