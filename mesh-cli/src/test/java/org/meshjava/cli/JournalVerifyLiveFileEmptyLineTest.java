package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh journal verify} of a journal whose segments are gone reads the live file's first
 * checkpoint to learn whose journal it is (SPEC.md §60.8). An empty line before that checkpoint is
 * refused as every other reader refuses one, naming the record before it; counted as a record, it
 * shifted the record number of every later message by one.
 */
class JournalVerifyLiveFileEmptyLineTest {
  @TempDir Path dir;

  /**
   * Regression: with an empty line before a damaged checkpoint, verify named the checkpoint as the
   * record after its own ("journal record 19: ..." for record 18). The live file's first line, a
   * checkpoint the latest snapshot covers, is made no checkpoint (its type misspelt), so the one
   * read is the last, after the snapshot's position and after the empty line.
   */
  @Test
  void verify_ofAnEmptyLineBeforeTheLiveFilesCheckpoint_namesTheEmptyLine_notAShiftedRecord()
      throws Exception {
    History h = History.archivedWithoutSegments(dir);
    // The snapshot taken after the first of the later serves is the latest: the check of the
    // records it covers stops before the last checkpoint.
    Files.delete(h.latestSnapshot());
    int first = h.nth("Checkpoint", 0);
    h.editLine(first, l -> l.replace("\"type\":\"Checkpoint\"", "\"type\":\"Checkpoinx\""));
    int at = h.nth("Checkpoint", 0);
    long seq = seqOf(h.lines().get(at));
    h.editLines(
        (List<String> lines) -> {
          lines.set(at, lines.get(at) + "x"); // no longer a record
          lines.add(at, "");
        });
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.err()).isEqualTo(1);
    assertThat(verify.err())
        .as(verify.err())
        .contains("is empty, after record " + (seq - 1))
        .doesNotContain("record " + (seq + 1) + ":");
  }

  private static long seqOf(String line) {
    int from = line.indexOf("\"seq\":") + "\"seq\":".length();
    int to = from;
    while (Character.isDigit(line.charAt(to))) {
      to++;
    }
    return Long.parseLong(line.substring(from, to));
  }
}
