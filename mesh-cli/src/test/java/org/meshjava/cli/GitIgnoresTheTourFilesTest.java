package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What the README's tour leaves beside its journal in the working copy (the snapshot and segment
 * folders, and the two files {@code journal archive} writes beside the journal) is ignored by the
 * repository's {@code .gitignore}, so that {@code git status} after the tour shows none of it.
 */
class GitIgnoresTheTourFilesTest {
  /**
   * Regression: {@code .gitignore} named the journal and its two folders but not the archive's
   * marker and its hidden twin, so {@code git status} listed both after step 5's {@code journal
   * archive}; nor {@code <journal>.archiving}, which an archive killed before its rename leaves.
   */
  @Test
  void whatAJournalAndItsArchiveWriteBesideIt_isIgnored() throws IOException {
    Path journal = Path.of("steward.journal");
    List<Path> beside =
        List.of(
            journal,
            FileSnapshotStore.beside(journal).directory(),
            JournalSegments.directory(journal),
            JournalSegments.marker(journal),
            JournalSegments.markerTwin(journal),
            // Where an archive writes the live file's new beginning: left by one killed before
            // its rename, until the journal's next start or archive removes it (SPEC.md 60.8).
            Path.of(journal + ".archiving"));
    List<String> patterns =
        Files.readAllLines(
                Path.of("..", ".gitignore").toAbsolutePath().normalize(), StandardCharsets.UTF_8)
            .stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#") && !line.startsWith("!"))
            .toList();
    for (Path p : beside) {
      String name = p.getFileName().toString();
      assertThat(patterns.stream().anyMatch(pattern -> ignores(pattern, name)))
          .as("%s is ignored by one of %s", name, patterns)
          .isTrue();
    }
  }

  /**
   * Whether the {@code .gitignore} line {@code pattern} ignores {@code name} at the repository's
   * root: its simple forms only (a leading {@code /} anchors it there, a trailing one names a
   * folder), which are all the file uses.
   */
  private static boolean ignores(String pattern, String name) {
    String glob = pattern.replaceFirst("^/", "").replaceFirst("/$", "");
    return FileSystems.getDefault().getPathMatcher("glob:" + glob).matches(Path.of(name));
  }
}
