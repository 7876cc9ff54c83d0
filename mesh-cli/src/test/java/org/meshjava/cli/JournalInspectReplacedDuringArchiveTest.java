package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.internal.JournalSegments;

/**
 * {@code mesh journal inspect} reads again a journal whose files an archive moved under it, and
 * prints only the records its failed read had not ({@link PrintedRecords}). That is sound only for
 * an archive, which moves records without changing them: here the files are also replaced between
 * the two reads, by another journal or by the same one cut short, and inspect must refuse rather
 * than print records of two journals as one, or fewer records than it claims to have read.
 */
class JournalInspectReplacedDuringArchiveTest {
  @TempDir Path tmp;

  @Test
  void anotherJournalPutInPlaceDuringTheArchive_isRefusedNotPrintedAfterTheFirst()
      throws Exception {
    History h = ArchiveDuringCommand.archivedOnce(Files.createDirectories(tmp.resolve("a")));
    History other =
        new History(Files.createDirectories(tmp.resolve("b")), SigningKey.generate(), "steward")
            .serve(12, "x");
    Run run = inspectReplacedDuringArchive(h, lines(other.journal));
    assertThat(run.err()).contains("reads otherwise than when it was printed");
    assertThat(run.out()).doesNotContain("spend per grant");
  }

  @Test
  void theSameJournalCutShortDuringTheArchive_isRefusedAsShorterThanPrinted() throws Exception {
    History h = ArchiveDuringCommand.archivedOnce(tmp);
    // Its first two records, exactly as written: a rerun reads them as they were printed.
    List<String> firstTwo = segmentLines(h.journal).subList(0, 2);
    assertThat(inspectReplacedDuringArchive(h, firstTwo).err()).contains("holds 2 records now");
  }

  /**
   * Inspects {@code h}'s journal, archiving it from the progress line of record 3 and then putting
   * a live file of {@code replacement} in its place; checks that inspect refused, each record it
   * printed once.
   */
  private static Run inspectReplacedDuringArchive(History h, List<String> replacement) {
    ArchiveDuringCommand run =
        ArchiveDuringCommand.run(
            "checked 3 records",
            () -> {
              Run archive = mesh("journal", "archive", h.journal.toString());
              replace(h.journal, replacement);
              return archive;
            },
            "inspect",
            h.journal.toString());
    assertThat(run.archive().code()).as(run.archive().err()).isZero();
    assertThat(run.command().code()).as(run.command().out()).isNotZero();
    assertThat(run.command().err()).contains("changed while it was inspected");
    assertNoRecordTwice(run.command().out());
    return run.command();
  }

  /** Each record line ({@code #<seq> …}) printed once. */
  private static void assertNoRecordTwice(String out) {
    List<String> seqs =
        out.lines()
            .filter(l -> l.startsWith("#"))
            .map(l -> l.substring(0, l.indexOf(' ')))
            .toList();
    assertThat(seqs).isNotEmpty().doesNotHaveDuplicates();
  }

  /** The journal at {@code journal} made a live file of {@code lines}: no segments, no marker. */
  private static void replace(Path journal, List<String> lines) {
    try {
      try (Stream<Path> s = Files.list(JournalSegments.directory(journal))) {
        for (Path p : s.toList()) {
          Files.delete(p);
        }
      }
      Files.deleteIfExists(JournalSegments.marker(journal));
      Files.deleteIfExists(JournalSegments.markerTwin(journal));
      Path fresh = journal.resolveSibling("replacement.tmp");
      Files.writeString(fresh, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
      Files.move(fresh, journal, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of the first segment of {@code journal}: its first records. */
  private static List<String> segmentLines(Path journal) throws IOException {
    try (Stream<Path> s = Files.list(JournalSegments.directory(journal))) {
      return lines(s.sorted().findFirst().orElseThrow());
    }
  }
}
