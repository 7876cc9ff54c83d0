package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.testing.ChildJava;

/**
 * A journal whose disk fills as it is appended to, shown with a file size limit ({@code ulimit -f}
 * on a child JVM, which ignores {@code SIGXFSZ} and so sees {@code EFBIG} from the write, as it
 * would {@code ENOSPC}): the append that does not fit is refused with a typed reason, never a crash
 * nor an acknowledged record lost, and once there is room again the journal opens with every
 * acknowledged record and takes more.
 */
class FileSizeLimitTest {
  @TempDir Path dir;

  @Test
  void anAppendPastTheFileSizeLimit_isRefusedTyped_andEveryAcknowledgedRecordIsKept()
      throws Exception {
    Path journal = dir.resolve("j.log");
    List<String> lines = runLimited(FileSizeLimitChild.class, journal.toString());
    assertThat(lines).as("the child's lines").isNotEmpty();
    String last = lines.getLast();
    assertThat(last).as("the child's last line, of %s", lines.size()).isEqualTo("REFUSED FAILED");
    long acked = lines.stream().filter(l -> l.startsWith("ACK ")).count();
    assertThat(acked).isPositive();

    assertThat(JournalFile.read(journal).records()).hasSizeGreaterThanOrEqualTo((int) acked);
    try (FileJournal j = FileJournal.open(journal)) {
      assertThat(j.recovered()).hasSizeGreaterThanOrEqualTo((int) acked);
      int next = j.recovered().size();
      j.append(FileJournalTest.sealed(next));
    }
    assertThat(JournalFile.read(journal).records()).hasSizeGreaterThan((int) acked);
  }

  /**
   * The lines {@code main} prints, run with {@code args} in a child JVM under a file size limit of
   * 16 blocks (sh's blocks are 512 or 1024 bytes, either will do): a few dozen records.
   */
  static List<String> runLimited(Class<?> main, String... args) throws Exception {
    assumeTrue(new java.io.File("/bin/sh").canExecute(), "a POSIX shell for ulimit");
    List<String> java =
        ChildJava.command(
            List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"), main, args);
    List<String> cmd =
        new ArrayList<>(List.of("/bin/sh", "-c", "ulimit -f 16 && exec \"$@\"", "sh"));
    cmd.addAll(java);
    return linesOf(cmd);
  }

  /** The lines the command {@code cmd} prints, its errors discarded, once it ends. */
  static List<String> linesOf(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return lines;
  }
}
