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

  /**
   * The directory {@code <journal><extension>} beside the journal file {@code journal} (named
   * {@code journal<extension>} when {@code journal} has no file name). Where {@code journal} is a
   * symbolic link, beside the file it leads to, under that file's name: one journal reached by two
   * names has one snapshot folder and one segment folder, not one per name (SPEC.md §60.8).
   */
  public static Path beside(Path journal, String extension) {
    Path file = linkedFile(journal);
    Path name = file.getFileName();
    return file.resolveSibling((name == null ? "journal" : name.toString()) + extension);
  }

  /** How many links {@link #linkedFile} follows before it gives up: a loop of links. */
  private static final int MAX_LINKS = 40;

  /**
   * The file {@code journal} leads to: itself unless it is a symbolic link; the link's real path
   * where its file exists, else (a new journal the link names) the path its links lead to.
   */
  static Path linkedFile(Path journal) {
    if (!Files.isSymbolicLink(journal)) {
      return journal;
    }
    try {
      return journal.toRealPath();
    } catch (IOException notThere) {
      // Not there yet: the link's target is where opening the journal creates it.
    }
    Path p = journal;
    try {
      for (int i = 0; i < MAX_LINKS && Files.isSymbolicLink(p); i++) {
        Path target = Files.readSymbolicLink(p);
        Path parent = p.toAbsolutePath().getParent();
        p = (parent == null ? target : parent.resolve(target)).normalize();
      }
    } catch (IOException e) {
      return journal; // an unreadable link: the name as given
    }
    return p;
  }

  /**
   * The absolute path of the file {@code journal} leads to, through symbolic links in its folders
   * as well as its own ({@link #linkedFile}); for a file not there yet, its folder's real path with
   * its name.
   */
  static Path realFile(Path journal) {
    Path file = linkedFile(journal).toAbsolutePath();
    try {
      return file.toRealPath();
    } catch (IOException notThere) {
      // A file an open would create: its folder's real path is where it would be.
    }
    Path folder = file.getParent();
    Path name = file.getFileName();
    if (folder != null && name != null) {
      try {
        return folder.toRealPath().resolve(name);
      } catch (IOException noFolder) {
        // Nothing real to resolve against: the path as it reads.
      }
    }
    return file;
  }

  /** Whether {@code file} is one of this directory's files, named by its digits and suffix. */
  public boolean holds(Path file) {
    return directory.equals(file.getParent()) && named(file);
  }

  /** The file for sequence {@code seq}. */
  public Path file(long seq) {
    return directory.resolve(String.format("%020d", seq) + suffix);
  }

  /**
   * The files present, in the order of their names, which is the order of their sequences; none
   * when the directory does not exist. Files not named by 20 digits and the suffix are left out.
   *
   * @throws IOException also when something other than a directory is at its path: read as an empty
   *     directory, it would stand for files that are absent (archived records skipped unchecked,
   *     snapshots never loaded nor saved)
   */
  public List<Path> list() throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      if (Files.exists(directory)) {
        throw new IOException("it is not a folder");
      }
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + suffix)) {
      for (Path f : files) {
        if (named(f)) {
          out.add(f);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * The sequence a listed file's name gives.
   *
   * @throws NumberFormatException if its 20 digits do not fit a {@code long}
   */
  public long seq(Path file) {
    return Long.parseLong(digits(file));
  }

  /** Whether {@code file}'s name is 20 digits and the suffix. */
  private boolean named(Path file) {
    String n = String.valueOf(file.getFileName());
    if (!n.endsWith(suffix)) {
      return false;
    }
    String digits = digits(file);
    return digits.length() == 20 && digits.chars().allMatch(Character::isDigit);
  }

  private String digits(Path file) {
    String n = String.valueOf(file.getFileName());
    return n.substring(0, n.length() - suffix.length());
  }
}
