package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What an archive and an opening change among a file journal's files (SPEC.md 60.8): which file the
 * journal's name leads to (an archive renames its cut over it), the names in its segment folder (a
 * pending segment written, named or removed) and whether its marker is there. Appends change none
 * of it. Compared before and after a read that takes no lock, it tells a read that failed because
 * an archive or an opening moved the files under it from one that failed on the files as they are.
 * Immutable.
 *
 * @param liveFile the identity of the file the journal's name leads to ({@link
 *     HeldJournals#identity}); null when there is none
 * @param segmentFolder the names in the segment folder, sorted; empty when it cannot be listed
 * @param marked whether the journal's marker is there ({@link JournalSegments#marked})
 */
public record JournalLayout(@Nullable Object liveFile, List<String> segmentFolder, boolean marked) {
  /** Copies the names. */
  public JournalLayout {
    segmentFolder = List.copyOf(Objects.requireNonNull(segmentFolder, "segmentFolder"));
  }

  /** The layout of the journal at {@code journal} now; reading it changes nothing. */
  public static JournalLayout of(Path journal) {
    Object live;
    try {
      live = HeldJournals.identity(journal.toRealPath());
    } catch (IOException gone) {
      live = null;
    }
    List<String> names;
    try (Stream<Path> s = Files.list(JournalSegments.directory(journal))) {
      names = s.map(p -> String.valueOf(p.getFileName())).sorted().toList();
    } catch (IOException | java.io.UncheckedIOException unlisted) {
      names = List.of();
    }
    return new JournalLayout(live, names, JournalSegments.marked(journal));
  }
}
