package org.meshjava.journal.internal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The POSIX locks the kernel lists for this process ({@code /proc/locks}, Linux): whether a lock
 * the JDK still reports held is held by the OS too, without starting a child process to try it. A
 * lock dropped by the closing of another descriptor of its file is gone from the kernel's list
 * while the JDK's {@code FileLock} still reads valid.
 */
final class OsLocks {
  private static final Path LOCKS = Path.of("/proc/locks");

  private OsLocks() {}

  /** Whether this process holds a POSIX lock on {@code file}; skips the test off Linux. */
  static boolean heldHere(Path file) throws Exception {
    assumeTrue(Files.isReadable(LOCKS), "the kernel lists its locks in /proc/locks (Linux)");
    long inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
    String pid = Long.toString(ProcessHandle.current().pid());
    List<String> lines = Files.readAllLines(LOCKS);
    for (String line : lines) {
      // "1: POSIX  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF"
      String[] f = line.trim().split("\\s+");
      if (f.length >= 6 && f[1].equals("POSIX") && f[4].equals(pid) && f[5].endsWith(":" + inode)) {
        return true;
      }
    }
    return false;
  }
}
