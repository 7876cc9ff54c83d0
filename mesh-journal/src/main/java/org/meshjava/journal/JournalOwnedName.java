package org.meshjava.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A name that a file journal's own machinery makes, writes or removes beside the journal (SPEC.md
 * 60.8): the file an archive writes the live file's new beginning to ({@code <journal>.archiving}),
 * which the next opening deletes; the segment folder and the snapshot folder, and every file in
 * them; the archive's marker and its hidden twin. A file another tool writes under such a name is
 * deleted, replaced or taken for the journal's own, so a tool that writes files a user names
 * ({@code mesh journal export --out}) refuses these. Immutable.
 *
 * @param journal the journal whose name it is
 * @param what what the name is to that journal, in words that follow "it is"
 */
public record JournalOwnedName(Path journal, String what) {
  /** What the name of the file an archive writes the live file's new beginning to adds. */
  static final String ARCHIVING = ".archiving";

  /** Validates the parts. */
  public JournalOwnedName {
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(what, "what");
  }

  /**
   * The journal whose machinery's name {@code file} is, if there is one: a file of that name is
   * beside it, or, for a file in a folder, the folder is that journal's segment or snapshot folder.
   * Only names: nothing at {@code file} need exist, and nothing is read but whether the journal's
   * file is there. Thread-safe (it keeps no state).
   */
  public static Optional<JournalOwnedName> of(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    Path name = absolute.getFileName();
    Path given = absolute.getParent();
    if (name == null || given == null) {
      return Optional.empty();
    }
    Path folder = realIfThere(given);
    Optional<JournalOwnedName> inside =
        besideAJournal(folder, "", JournalSegments.EXTENSION, "a file in the segment folder of")
            .or(
                () ->
                    besideAJournal(
                        folder, "", FileSnapshotStore.BESIDE, "a file in the snapshot folder of"));
    if (inside.isPresent()) {
      return inside;
    }
    Path at = folder.resolve(name);
    return besideAJournal(
            at,
            "",
            ARCHIVING,
            "where an archive of the journal writes the live file's new beginning, deleted by"
                + " the next opening of")
        .or(() -> besideAJournal(at, "", JournalSegments.EXTENSION, "the segment folder of"))
        .or(() -> besideAJournal(at, "", FileSnapshotStore.BESIDE, "the snapshot folder of"))
        .or(() -> besideAJournal(at, "", JournalSegments.MARKER, "the archive marker of"))
        .or(() -> besideAJournal(at, ".", JournalSegments.MARKER, "the archive marker's twin of"));
  }

  /** {@code folder}'s real path: a link to a segment folder, or a folder under one, is it. */
  private static Path realIfThere(Path folder) {
    try {
      return folder.toRealPath();
    } catch (IOException notThere) {
      // A folder that is not there is no journal's yet; its name is judged as given.
      return folder;
    }
  }

  /**
   * The journal whose name {@code named}'s name holds between {@code prefix} and {@code suffix},
   * beside {@code named}: owned if a file of that name is there.
   */
  private static Optional<JournalOwnedName> besideAJournal(
      Path named, String prefix, String suffix, String what) {
    Path last = named.getFileName();
    if (last == null) {
      return Optional.empty();
    }
    String n = last.toString();
    if (n.length() <= prefix.length() + suffix.length()
        || !n.startsWith(prefix)
        || !n.endsWith(suffix)) {
      return Optional.empty();
    }
    Path journal = named.resolveSibling(n.substring(prefix.length(), n.length() - suffix.length()));
    if (!Files.exists(journal, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(journal)) {
      return Optional.empty();
    }
    return Optional.of(new JournalOwnedName(journal, what));
  }
}
