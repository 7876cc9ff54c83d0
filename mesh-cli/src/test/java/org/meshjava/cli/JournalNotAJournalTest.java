package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: {@code mesh journal verify}, {@code inspect} and {@code export} named a file that is
 * no journal at all (a README, an image, some other JSON) by a JSON parser's complaint about one of
 * its lines ("the line at byte 13 of README.md is not JSON: Unrecognized token 'A'"). They now say
 * it is not a mesh journal and what a journal's first line is; a journal damaged further on is
 * reported as before, by its record.
 */
class JournalNotAJournalTest {
  @TempDir Path tmp;

  /** Each of the three commands on {@code file}: exit 1, one line, "not a mesh journal". */
  private void assertNotAJournal(Path file) {
    Path out = tmp.resolve("out.journal");
    for (List<String> args : JournalFileKindTest.readingCommands(file, out)) {
      Run r = mesh(args.toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
      assertThat(r.err())
          .startsWith("mesh " + args.get(0) + " " + args.get(1) + ": ")
          .contains(file + " is not a mesh journal: its first line does not begin as")
          .contains("record 0, a JSON object that begins {\"seq\":0,")
          .doesNotContain("JSON:")
          .doesNotContain("has no seq");
      assertThat(r.out()).isEmpty();
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void aReadme_isSaidToBeNoJournal() throws Exception {
    assertNotAJournal(
        Files.writeString(tmp.resolve("README.md"), "# mesh-java\n\nA steward for models.\n"));
  }

  @Test
  void anImage_isSaidToBeNoJournal() throws Exception {
    byte[] png = {
      (byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 1
    };
    assertNotAJournal(Files.write(tmp.resolve("logo.png"), png));
  }

  @Test
  void aJsonObject_withOrWithoutItsNewline_isSaidToBeNoJournal() throws Exception {
    assertNotAJournal(Files.writeString(tmp.resolve("a.json"), "{\"name\": \"x\", \"seq\": 0}\n"));
    // Without a newline it read as a journal whose first append was cut short, "holding no
    // records yet", which a steward's first append would then have cut away.
    assertNotAJournal(Files.writeString(tmp.resolve("b.json"), "{\"name\": \"x\"}"));
  }

  /**
   * {@code mesh serve} refuses such a file too, and leaves it as it was: a JSON file without a
   * final newline was opened as a journal whose first append was cut short, which the steward's
   * first append would have cut away.
   */
  @Test
  void serve_onAFileThatIsNoJournal_isRefused_andLeavesItAsItWas() throws Exception {
    String json = "{\"name\": \"x\"}";
    Path file = Files.writeString(tmp.resolve("b.json"), json);
    // On a port already taken: a start that got past the journal fails at once instead of serving.
    Run r = CliErrorsTest.serveOnATakenPort(file);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: " + file + " is not a mesh journal")
        .doesNotContain("cannot listen");
    assertThat(r.out()).isEmpty();
    assertThat(Files.readString(file)).isEqualTo(json);
  }

  @Test
  void aJournalDamagedAfterItsFirstRecord_isStillNamedByTheDamagedRecord() throws Exception {
    Path journal = tmp.resolve("damaged.journal");
    JournalStreamingCommandTest.writeReceipts(journal, 3);
    List<String> lines = new ArrayList<>(Files.readAllLines(journal, StandardCharsets.UTF_8));
    lines.set(1, "not a record");
    Files.write(journal, lines, StandardCharsets.UTF_8);
    Run r = mesh("journal", "verify", journal.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("journal record 1: not JSON").doesNotContain("not a mesh journal");
  }

  /**
   * Regression: a journal whose first bytes were overwritten was said to be no journal, as a README
   * is; its record 1 follows, so it is named as a damaged record 0, to be restored.
   */
  @Test
  void aJournalWhoseFirstBytesWereDamaged_isNamedByRecordZero() throws Exception {
    Path journal = tmp.resolve("damaged.journal");
    JournalStreamingCommandTest.writeReceipts(journal, 3);
    byte[] bytes = Files.readAllBytes(journal);
    bytes[2] = '#';
    Files.write(journal, bytes);
    Run r = mesh("journal", "verify", journal.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("journal record 0: the first line of " + journal + " is damaged")
        .contains("restore it from a copy")
        .doesNotContain("not a mesh journal");
  }

  /** A journal of one record, {@code one.journal}, its first byte overwritten. */
  private Path oneLineJournalWithItsFirstByteOverwritten() throws Exception {
    Path journal = tmp.resolve("one.journal");
    JournalStreamingCommandTest.writeReceipts(journal, 1);
    String first = Files.readAllLines(journal, StandardCharsets.UTF_8).get(0);
    Files.writeString(journal, "#" + first.substring(1) + "\n", StandardCharsets.UTF_8);
    return journal;
  }

  /**
   * Regression: a journal of one line whose first bytes were overwritten has no record 1 to be told
   * by, and was said to be no journal. With its snapshot folder beside it and a record's shape past
   * those bytes, verify and a start name it a damaged record 0, to be restored.
   */
  @Test
  void aOneLineJournalWhoseFirstBytesWereDamaged_besideItsSnapshotFolder_isNamedByRecordZero()
      throws Exception {
    Path journal = oneLineJournalWithItsFirstByteOverwritten();
    Files.createDirectories(tmp.resolve("one.journal.snapshots"));
    Run verify = mesh("journal", "verify", journal.toString());
    Run start = CliErrorsTest.serveOnATakenPort(journal);
    for (Run r : List.of(verify, start)) {
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err())
          .contains("journal record 0: the only line of " + journal + " is damaged")
          .contains("restore it from a copy")
          .doesNotContain("not a mesh journal")
          .doesNotContain("cannot listen");
    }
  }

  /**
   * Regression: with its snapshot folder kept elsewhere (nothing beside the file), {@code journal
   * verify --snapshots DIR} said a damaged one-line journal was no journal, though a start given
   * that folder ({@code snapshots.dir}) refuses it at its record: the folder records the file as
   * its journal. Both now reach that verdict by one rule ({@code FileJournal.open(path, folder)}).
   */
  @Test
  void aOneLineJournalWhoseFirstBytesWereDamaged_withItsSnapshotFolderElsewhere_isRecordZero()
      throws Exception {
    Path journal = oneLineJournalWithItsFirstByteOverwritten();
    Path snaps = Files.createDirectories(tmp.resolve("kept-elsewhere"));
    Files.writeString(
        snaps.resolve(org.meshjava.journal.SnapshotFolderClaim.JOURNAL_FILE),
        journal.toRealPath() + "\n");
    Path config =
        Files.writeString(
            tmp.resolve("mesh.json"), "{\"snapshots\": {\"dir\": \"" + snaps + "\"}}");
    Run verify = mesh("journal", "verify", journal.toString(), "--snapshots", snaps.toString());
    Run start = CliErrorsTest.serveOnATakenPort(journal, "--config", config.toString());
    for (Run r : List.of(verify, start)) {
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err())
          .contains("journal record 0: the only line of " + journal + " is damaged")
          .contains(snaps.toString())
          .doesNotContain("not a mesh journal")
          .doesNotContain("cannot listen");
    }
  }

  @Test
  void aJournalWhoseFirstAppendWasCutShort_stillHoldsNoRecordsYet() throws Exception {
    Path journal = Files.writeString(tmp.resolve("torn.journal"), "{\"se");
    Run r = mesh("journal", "verify", journal.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("holds no records yet").contains("a final line of 4 bytes");
  }
}
