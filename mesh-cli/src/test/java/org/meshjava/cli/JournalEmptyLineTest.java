package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: a journal file with an empty line added (an editor's newline after the last record)
 * was refused by {@code mesh journal verify}, {@code inspect}, {@code export} and {@code mesh
 * serve} with only "the line at byte N of FILE has no seq". It is still refused, since the file was
 * edited, but the message names the empty line and the record before it, and says to remove it.
 */
class JournalEmptyLineTest {
  @TempDir Path tmp;

  private Path threeRecords() throws Exception {
    Path journal = tmp.resolve("edited.journal");
    JournalStreamingCommandTest.writeReceipts(journal, 3);
    return journal;
  }

  private static void assertEmptyLineNamed(
      Run r, String command, Path journal, long at, int after) {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh " + command + ": ")
        .contains("the line at byte " + at + " of " + journal + " is empty, after record " + after)
        .contains("remove the empty line")
        .doesNotContain("has no seq");
  }

  @Test
  void verifyInspectAndExport_ofAJournalEndingInAnEmptyLine_nameItAndSayToRemoveIt()
      throws Exception {
    Path journal = threeRecords();
    long size = Files.size(journal);
    Files.write(journal, new byte[] {'\n'}, StandardOpenOption.APPEND);
    for (List<String> args :
        JournalFileKindTest.readingCommands(journal, tmp.resolve("out.journal"))) {
      assertEmptyLineNamed(
          mesh(args.toArray(String[]::new)),
          String.join(" ", args.subList(0, 2)),
          journal,
          size,
          2);
    }
    assertThat(tmp.resolve("out.journal")).doesNotExist();
  }

  @Test
  void verify_ofAJournalWithAnEmptyLineBetweenRecords_namesIt() throws Exception {
    Path journal = threeRecords();
    List<String> lines = new ArrayList<>(Files.readAllLines(journal, StandardCharsets.UTF_8));
    long at = lines.get(0).getBytes(StandardCharsets.UTF_8).length + 1;
    lines.add(1, "");
    Files.write(journal, lines, StandardCharsets.UTF_8);
    assertEmptyLineNamed(
        mesh("journal", "verify", journal.toString()), "journal verify", journal, at, 0);
  }

  @Test
  void serve_onAJournalEndingInAnEmptyLine_isRefusedNamingIt_andLeavesTheFileAsItWas()
      throws Exception {
    Path journal = threeRecords();
    Files.write(journal, new byte[] {'\n'}, StandardOpenOption.APPEND);
    byte[] before = Files.readAllBytes(journal);
    Run r = CliErrorsTest.serveOnATakenPort(journal);
    assertEmptyLineNamed(r, "serve", journal, before.length - 1, 2);
    assertThat(r.err()).doesNotContain("cannot listen");
    assertThat(Files.readAllBytes(journal)).isEqualTo(before);
  }
}
