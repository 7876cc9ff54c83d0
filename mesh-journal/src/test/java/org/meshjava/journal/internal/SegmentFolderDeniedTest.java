package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A segment folder this user may not list is refused {@code IO} saying what to do, as a denied
 * journal or snapshot folder is. Regression: run as a user other than the folder's owner, a start
 * from genesis and {@code mesh journal verify} said "cannot list /srv/j.log.segments: permission
 * denied" and stopped there. The tests run as root in CI, whom no listing is denied, so the refusal
 * the listing's failure becomes is asked for directly.
 */
class SegmentFolderDeniedTest {
  private static final Path JOURNAL = Path.of("/srv/mesh/j.log");
  private static final Path FOLDER = Path.of("/srv/mesh/j.log.segments");

  @Test
  void aSegmentFolderThatCannotBeListed_saysWhatToDo() {
    JournalException e =
        JournalSegments.listRefused(JOURNAL, new AccessDeniedException(FOLDER.toString()));
    assertRefused(
        e,
        "cannot list "
            + FOLDER
            + ": permission denied; grant this user read access to the segment folder "
            + FOLDER
            + " and the segments in it, or run as the user who owns them");
    assertThat(e.getCause()).isInstanceOf(AccessDeniedException.class);
  }

  /**
   * A segment this user may not read, in a folder it may list. Regression: "cannot read
   * /srv/mesh/j.log.segments/…jsonl: permission denied" and nothing more (FoldersDeniedForRealTest
   * reads one for real, in the slow suite).
   */
  @Test
  void aSegmentThatCannotBeRead_saysWhatToDo() {
    Path segment = FOLDER.resolve("00000000000000000000.jsonl");
    assertRefused(
        JournalSegments.readRefused(segment, new AccessDeniedException(segment.toString())),
        "cannot read "
            + segment
            + ": permission denied; grant this user read access to the segment folder "
            + FOLDER
            + " and the segments in it, or run as the user who owns them");
    assertThat(JournalSegments.readRefused(segment, new IOException("Input/output error")))
        .hasMessage("cannot read " + segment + ": Input/output error");
  }

  @Test
  void anotherFailureToList_saysWhyAndNoRemedy() {
    JournalException e =
        JournalSegments.listRefused(JOURNAL, new IOException("it is not a folder"));
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage()).isEqualTo("cannot list " + FOLDER + ": it is not a folder");
  }

  private static void assertRefused(JournalException e, String message) {
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage()).isEqualTo(message);
  }
}
