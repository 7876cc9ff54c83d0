package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A journal file's name leaves room for the names an archive makes beside it (SPEC.md 60.8): the
 * longest, the marker's hidden twin, adds 26 bytes, and a file name may be 255 bytes. A longer
 * journal name was opened and served, and every archive of it then failed ("File name too long")
 * after writing its marker. Now it is refused when opened, {@code NAME_TOO_LONG}, naming the limit,
 * before anything is made; a name at the limit opens and archives.
 */
class JournalNameLengthTest {
  @TempDir Path dir;

  @Test
  void aNameAtTheLimit_opensAndArchives() throws Exception {
    Path p = dir.resolve("j".repeat(JournalSegments.MAX_JOURNAL_NAME_BYTES));
    assertThat(JournalSegments.MAX_JOURNAL_NAME_BYTES).isEqualTo(229);
    FileJournalStreamTest.journal(p, 8);
    List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(4);
    assertThat(JournalSegments.markerTwin(p).getFileName().toString()).hasSize(255);
    assertThat(JournalSegments.markerTwin(p)).exists();
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
  }

  @Test
  void aNameOneByteLonger_isRefusedNamingTheLimit_andNothingIsMade() throws Exception {
    // 230 ASCII characters, and 115 two-byte ones: the limit is on bytes, as the file system's is.
    for (String name : List.of("j".repeat(230), "\u00e9".repeat(115))) {
      Path p = dir.resolve("new").resolve(name);
      assertNameTooLong(p, "is 230 bytes long, and a journal's name may be at most 229 bytes");
      assertThat(dir.resolve("new")).doesNotExist();
    }
  }

  @Test
  void aLongNamedJournalAlreadyThere_isRefusedAndKeptAsItIs() throws Exception {
    // Written under a short name and renamed, as a journal an earlier version opened was.
    Path p = dir.resolve("k".repeat(240));
    Files.move(FileJournalStreamTest.journal(dir.resolve("short.log"), 3), p);
    byte[] before = Files.readAllBytes(p);
    assertNameTooLong(p, "is 240 bytes long");
    assertThat(Files.readAllBytes(p)).isEqualTo(before);
    // Through a short link, the file it leads to is the journal, and its name is what counts.
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), p);
    assertNameTooLong(link, "(" + p + ") is 240 bytes long");
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("k".repeat(240), "link.log");
    }
  }

  private static void assertNameTooLong(Path p, String words) {
    JournalException e = catchThrowableOfType(JournalException.class, () -> FileJournal.open(p));
    assertThat(e).as("opening " + p + " refused").isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.NAME_TOO_LONG);
    assertThat(e.getMessage())
        .startsWith("cannot open " + p + ": the journal file's name ")
        .contains(words)
        .contains("a file name may be at most 255 bytes; rename the journal file");
  }
}
