package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A directory of files named by a record sequence: 20 decimal digits and a suffix, so that their
 * names sort as their sequences do. A file journal's archived segments ({@link JournalSegments})
 * and the file snapshot store keep their files this way. Immutable; reads the directory afresh on
 * every {@link #list()}.
 *
 * @param directory the directory
 * @param suffix what every file name ends with after the digits, e.g. {@code .jsonl}
 */
public record SequenceFiles(Path directory, String suffix) {
  /** Validates the parts. */
  public SequenceFiles {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(suffix, "suffix");
  }

  /** One file present and the sequence its name gives. */
  public record Entry(Path file, long seq) {}

  /**
   * The directory {@code <journal><extension>} beside the journal file {@code journal} (named
   * {@code journal<extension>} when {@code journal} has no file name).
   */
  public static Path beside(Path journal, String extension) {
    Path name = journal.getFileName();
    return journal.resolveSibling((name == null ? "journal" : name.toString()) + extension);
  }

  /** The file for sequence {@code seq}. */
  public Path file(long seq) {
    return directory.resolve(String.format("%020d", seq) + suffix);
  }

  /**
   * The files present, by sequence; none when the directory does not exist. A file whose name is
   * not 20 digits and the suffix is not one of them.
   */
  public List<Entry> list() throws IOException {
    List<Entry> out = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + suffix)) {
      for (Path f : files) {
        String n = String.valueOf(f.getFileName());
        String digits = n.substring(0, n.length() - suffix.length());
        if (digits.length() == 20 && digits.chars().allMatch(Character::isDigit)) {
          out.add(new Entry(f, Long.parseLong(digits)));
        }
      }
    }
    out.sort((a, b) -> Long.compare(a.seq(), b.seq()));
    return out;
  }
}
