package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * Every file an archived journal keeps (the live file, a segment, the segment folder, the marker
 * and its twin, SPEC.md 60.8) tampered with while no steward runs: cut short, a byte flipped,
 * replaced by a folder, by a link to a copy of itself, by a dangling link, or by an older copy.
 * Each journal is either refused with a typed reason, leaving the file as the tampering left it, or
 * read whole and in order: never a record read twice or out of order, and never fewer records than
 * it holds, save where the live file is cut mid-line (read as an append cut short, the one loss no
 * journal alone can tell; a snapshot tells it, SPEC.md 60.3).
 */
class JournalTamperingSweepTest {
  @TempDir Path dir;

  /** What is done to a file. */
  private enum Tamper {
    CUT_SHORT,
    BYTE_FLIPPED,
    FOLDER,
    LINK_TO_A_COPY,
    DANGLING_LINK,
    OLDER_COPY
  }

  /** Which file of the journal at {@code p}. */
  private enum Kept {
    LIVE,
    SEGMENT,
    SEGMENT_FOLDER,
    MARKER,
    TWIN;

    Path of(Path p) {
      return switch (this) {
        case LIVE -> p;
        case SEGMENT -> JournalSegments.file(p, 0);
        case SEGMENT_FOLDER -> JournalSegments.directory(p);
        case MARKER -> JournalSegments.marker(p);
        case TWIN -> JournalSegments.markerTwin(p);
      };
    }
  }

  @Test
  void everyKeptFileTampered_isRefusedTyped_orReadWhole_neverTwice() throws Exception {
    List<String> outcomes = new ArrayList<>();
    for (Kept kept : Kept.values()) {
      for (Tamper tamper : Tamper.values()) {
        Path folder = Files.createDirectory(dir.resolve(kept + "-" + tamper));
        Path p = folder.resolve("j.log");
        // Records 0..3 in segment 0, 4..11 in the live file; an older copy holds 0..7, unarchived.
        FileJournalStreamTest.journal(p, 8);
        Path older = Files.copy(p, dir.resolve(kept + "-" + tamper + ".older"));
        LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
        FileJournalStreamTest.journal(p, 4);
        List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
        assertThat(all).hasSize(12);
        Path file = kept.of(p);
        if (!apply(tamper, file, older, dir.resolve(kept + "-" + tamper + ".copy"))) {
          continue;
        }
        byte[] left = Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) ? bytes(file) : null;
        String as = kept + " " + tamper;
        String outcome = outcome(as, p, all, kept == Kept.LIVE && tamper == Tamper.CUT_SHORT);
        outcomes.add(as + ": " + outcome);
        if (kept == Kept.LIVE && tamper == Tamper.DANGLING_LINK) {
          assertThat(dir.resolve("nowhere")).as(as + ": nothing made").doesNotExist();
        }
        if (left != null && outcome.startsWith("refused")) {
          assertThat(bytes(file)).as(as + ": left as the tampering left it").isEqualTo(left);
        }
      }
    }
    // A cut or a flipped byte in the records, and an older copy of the live file, are refused;
    // and the live file replaced by a link to nothing, which opening would make a new journal at,
    // is refused for the archive's files beside the link's name (found by this sweep).
    assertThat(outcomes)
        .contains(
            "LIVE DANGLING_LINK: refused CORRUPT",
            "LIVE BYTE_FLIPPED: refused CORRUPT",
            "SEGMENT BYTE_FLIPPED: refused CORRUPT",
            "SEGMENT CUT_SHORT: refused CORRUPT",
            "LIVE OLDER_COPY: refused CORRUPT");
  }

  /**
   * A record line repeated right after itself, or two adjacent lines swapped, in the live file or
   * in an archived segment: refused {@code CORRUPT} naming one of the two records, by a read of the
   * opened journal and by an unlocked read, and the file left as it was found; never a record read
   * twice or out of order. Attacked, held: each line chains to the one before it. (A steward's
   * start over such a journal: {@code FileJournalTamperingTest} in mesh-cli.)
   */
  @Test
  void aLineDuplicatedOrTwoSwapped_inTheLiveFileOrASegment_isRefusedNamingTheRecord()
      throws Exception {
    for (Kept kept : List.of(Kept.LIVE, Kept.SEGMENT)) {
      for (boolean swapped : List.of(false, true)) {
        String as = kept + (swapped ? " lines swapped" : " line duplicated");
        Path folder = Files.createDirectory(dir.resolve(as.replace(' ', '-')));
        Path p = folder.resolve("j.log");
        // Records 0..3 in segment 0, 4..11 in the live file.
        FileJournalStreamTest.journal(p, 8);
        LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
        FileJournalStreamTest.journal(p, 4);
        Path file = kept.of(p);
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        // Lines 1 and 2: records 1 and 2 in the segment, 5 and 6 in the live file.
        long first = (kept == Kept.LIVE ? 4 : 0) + 1;
        if (swapped) {
          java.util.Collections.swap(lines, 1, 2);
        } else {
          lines.add(2, lines.get(1));
        }
        Files.write(file, lines);
        byte[] left = bytes(file);
        for (int way = 0; way < 2; way++) {
          JournalException e =
              org.assertj.core.api.Assertions.catchThrowableOfType(
                  JournalException.class,
                  way == 0
                      ? () -> {
                        try (FileJournal j = FileJournal.open(p)) {
                          FileJournalStreamTest.read(j, JournalPosition.GENESIS);
                        }
                      }
                      : () -> FileJournalStreamTest.scan(p, JournalPosition.GENESIS));
          assertThat(e).as(as + ", way " + way).isNotNull();
          assertThat(e.reason()).as(as).isEqualTo(JournalException.Reason.CORRUPT);
          assertThat(e.seq()).as(as + ": " + e.getMessage()).isPresent();
          assertThat(e.seq().getAsLong())
              .as(as + ": " + e.getMessage())
              .isBetween(first, first + 1);
        }
        assertThat(bytes(file)).as(as + ": left as it was found").isEqualTo(left);
      }
    }
  }

  /**
   * A journal opened and archived through a link keeps its archive beside the file the link leads
   * to. That file replaced by a link to nothing (absolute or relative), or to an empty file, leaves
   * nothing beside the first link's name, but the link on the way has the archive beside it:
   * refused {@code CORRUPT}, naming it, by an opening and by an unlocked read, and nothing made.
   * Regression: a new, empty journal was made (or the empty file opened) where the chain ended, and
   * every archived spend could be spent again.
   */
  @Test
  void theFileALinkLeadsTo_replacedByALinkToNothingOrToAnEmptyFile_isRefused() throws Exception {
    for (String form : List.of("absolute", "relative", "empty file")) {
      Path folder = Files.createDirectory(dir.resolve("chain-" + form.replace(' ', '-')));
      Path live = FileJournalStreamTest.journal(folder.resolve("live.log"), 8);
      Path link = Files.createSymbolicLink(folder.resolve("steward.log"), live);
      LiveFileOlderThanArchiveTest.archiveUpTo(link, 4);
      assertThat(JournalSegments.directory(live)).isDirectory();
      Files.move(live, folder.resolve("moved-away"));
      Path end = folder.resolve("nowhere");
      if (form.equals("empty file")) {
        Files.createFile(end);
      }
      Files.createSymbolicLink(live, form.equals("relative") ? Path.of("nowhere") : end);
      // An unlocked read of a link to nothing finds no file (IO); one of an empty file is refused
      // as an opening is.
      for (int way = 0; way < (form.equals("empty file") ? 2 : 1); way++) {
        JournalException e =
            org.assertj.core.api.Assertions.catchThrowableOfType(
                JournalException.class,
                way == 0
                    ? () -> FileJournal.open(link).close()
                    : () -> FileJournalStreamTest.scan(link, JournalPosition.GENESIS));
        assertThat(e).as(form + ", way " + way).isNotNull();
        assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
        assertThat(e.getMessage())
            .contains(form.equals("empty file") ? "which holds no record" : "which does not exist")
            .contains("beside " + live + ", a link on the way, lie [")
            .contains(folder.resolve("live.log.segments").toString());
      }
      if (form.equals("empty file")) {
        // Through the replaced name itself, the archive lies beside the link opened.
        assertThatCode(() -> FileJournal.open(live).close())
            .isInstanceOfSatisfying(
                JournalException.class,
                e ->
                    assertThat(e.getMessage())
                        .contains("which holds no record, and beside the link lie ["));
        assertThat(end).isEmptyFile();
      } else {
        assertThat(end).as("nothing made").doesNotExist();
      }
    }
  }

  /**
   * Opens the journal at {@code p} and reads it, then reads it without a lock: each is refused
   * typed, or reads {@code all} ({@code aPrefixMayDo}: a prefix of it, at least the archived part)
   * with no record twice; the words of the first refusal, or "read".
   */
  private static String outcome(String as, Path p, List<JournalRecord> all, boolean aPrefixMayDo) {
    String said = null;
    for (int way = 0; way < 2; way++) {
      List<JournalRecord> read;
      try {
        if (way == 0) {
          try (FileJournal j = FileJournal.open(p)) {
            read = FileJournalStreamTest.read(j, JournalPosition.GENESIS);
          }
        } else {
          read = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
        }
      } catch (JournalException e) {
        assertThat(e.reason()).as(as).isNotNull();
        assertThat(e.getMessage()).as(as).isNotBlank();
        said = said == null ? "refused " + e.reason() : said;
        continue;
      }
      for (int i = 0; i < read.size(); i++) {
        assertThat(read.get(i).seq()).as(as + ": record " + i + " in order, once").isEqualTo(i);
      }
      if (aPrefixMayDo) {
        assertThat(all).as(as).startsWith(read.toArray(JournalRecord[]::new));
        assertThat(read.size()).as(as).isGreaterThanOrEqualTo(4);
      } else {
        assertThat(read).as(as).isEqualTo(all);
      }
      said = said == null ? "read" : said;
    }
    return said;
  }

  /** Does {@code tamper} to {@code file}; false where it does not apply to a file of that kind. */
  private static boolean apply(Tamper tamper, Path file, Path older, Path copy) throws IOException {
    boolean isFolder = Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS);
    switch (tamper) {
      case CUT_SHORT, BYTE_FLIPPED -> {
        if (isFolder || Files.size(file) == 0) {
          return false;
        }
        byte[] b = bytes(file);
        int at = b.length / 2;
        if (tamper == Tamper.CUT_SHORT) {
          Files.write(file, java.util.Arrays.copyOf(b, at));
        } else {
          at = b[at] == '\n' ? at + 1 : at;
          b[at] ^= 0x01;
          Files.write(file, b);
        }
      }
      case FOLDER -> {
        if (isFolder) {
          // The segment folder replaced by a file.
          moveAway(file, copy);
          Files.writeString(file, "not a folder");
        } else {
          Files.delete(file);
          Files.createDirectory(file);
        }
      }
      case LINK_TO_A_COPY -> {
        moveAway(file, copy);
        Files.createSymbolicLink(file, copy);
      }
      case DANGLING_LINK -> {
        moveAway(file, copy);
        Files.createSymbolicLink(file, copy.resolveSibling("nowhere"));
      }
      case OLDER_COPY -> {
        if (isFolder || !file.getFileName().toString().equals("j.log")) {
          return false;
        }
        Files.copy(older, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return true;
  }

  private static void moveAway(Path file, Path to) throws IOException {
    Files.move(file, to);
  }

  private static byte[] bytes(Path file) throws IOException {
    return Files.readAllBytes(file);
  }
}
