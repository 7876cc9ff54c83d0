package org.meshjava.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;

/**
 * Where a steward's journal is, as the command line and the configuration name it: exactly one of a
 * file, or a PostgreSQL database ({@code postgresql://…}) holding journals named by steward
 * identity.
 */
sealed interface JournalTarget {

  /** A journal file. */
  record File(Path path) implements JournalTarget {
    /**
     * Refuses a new journal whose folder is not there. Opening a journal would create the folder,
     * so a mistyped folder name (jounral for journal) would start a steward on a new, empty journal
     * with every grant's spend back at zero; a folder is made by the operator, never by a typo.
     *
     * @param source where the path came from, for the message ({@code --journal}, or {@code
     *     journal} in the configuration)
     * @throws CliException naming the missing folder and how to create it, or the file that stands
     *     where a folder of the path should be
     */
    void requireFolder(String source) throws CliException {
      Optional<String> why = FileJournal.missingFolder(path);
      if (why.isPresent()) {
        throw new CliException(source + " " + path + ": " + why.get());
      }
    }
  }

  /** A journal in a PostgreSQL database. */
  record Postgres(PostgresLocation location) implements JournalTarget {}

  /**
   * Whether {@code text} is a URL rather than a file name: a database's, or one of another scheme,
   * which {@link #parse} refuses (a configuration keeps it as written, not resolved as a file).
   */
  static boolean isUrl(String text) {
    return PostgresLocation.isPostgres(text) || text.matches("(?s)[A-Za-z][A-Za-z0-9+.-]*://.*");
  }

  /**
   * Reads what a user typed: a {@code postgresql://} URL, else a file name.
   *
   * @throws CliException naming what is wrong with a URL, or a URL of another scheme: taken as a
   *     file name, {@code mysql://db/x} would become a journal file {@code mysql:/db/x}; or for
   *     {@code -}, which names standard input elsewhere
   */
  static JournalTarget parse(String text) throws CliException {
    if (text.isBlank()) {
      // As for every other file name (Mesh.fileName): " " would become a journal file called " "
      // in the current folder, and "" that folder itself.
      throw new CliException(
          "journal '" + text + "': a file name or a postgresql:// URL, not an empty one");
    }
    if (text.equals(InputFile.STDIN)) {
      // Elsewhere "-" is standard input; a journal is locked and read at offsets, so it never is,
      // and taken as a file name "-" would become a journal file of that name.
      throw new CliException(
          "journal -: a journal is a file or a PostgreSQL database, not standard input; name a"
              + " file called - as ./-");
    }
    if (PostgresLocation.isPostgres(text)) {
      try {
        return new Postgres(PostgresLocation.parse(text));
      } catch (IllegalArgumentException e) {
        throw new CliException("journal URL: " + e.getMessage(), e);
      }
    }
    if (isUrl(text)) {
      throw new CliException(
          "journal "
              + text
              + ": a journal is a file or a PostgreSQL database (postgresql://…), not a "
              + text.substring(0, text.indexOf(':'))
              + " URL");
    }
    return new File(Path.of(text));
  }

  /**
   * Opens the journal for a steward, taking its lock.
   *
   * @param steward the steward's identity: a PostgreSQL journal's name
   */
  static Journal open(JournalTarget target, String steward) throws JournalException {
    return switch (target) {
      case File f -> FileJournal.open(f.path());
      case Postgres p -> PostgresJournal.open(p.location(), steward);
    };
  }

  /**
   * A journal resolved for reading without its lock: its records streamed in order, checked to form
   * one chain, none kept, so a journal of any length is read in bounded memory.
   */
  @FunctionalInterface
  interface Reader {
    /**
     * Streams the records to {@code visitor}, telling {@code progress} the count checked after each
     * one.
     *
     * @throws JournalException {@code CORRUPT} naming the first record that is malformed or does
     *     not chain, {@code IO}, or what {@code visitor} throws
     */
    JournalFile.End scan(LongConsumer progress, JournalFile.Visitor visitor)
        throws JournalException;
  }

  /**
   * The refusal of a journal file that is not there, saying what is there instead: a journal is
   * read, locked and appended to in place, so a folder, a symbolic link that leads nowhere, a FIFO
   * or a device is none, and a journal replaced by one of those is not reported as merely absent.
   */
  static CliException noJournal(Path path) {
    if (Files.isDirectory(path)) {
      return new CliException("no journal at " + path + ": it is a folder");
    }
    if (Files.isSymbolicLink(path) && !Files.exists(path)) {
      return new CliException(
          "no journal at "
              + path
              + ": it is a symbolic link that leads to no file (its target is missing, or links"
              + " loop)");
    }
    if (Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return new CliException(
          "no journal at "
              + path
              + ": it is not a regular file (a FIFO or a device is no journal)");
    }
    return new CliException("no journal at " + path);
  }

  /**
   * Resolves {@code target} for reading.
   *
   * @param steward the journal's name in a database; a database holding one journal needs none
   * @throws CliException if no journal is there, or a database holds several and none is named
   */
  static Reader reader(JournalTarget target, Optional<String> steward)
      throws CliException, JournalException {
    return switch (target) {
      case File f -> {
        if (!Files.isRegularFile(f.path())) {
          throw noJournal(f.path());
        }
        // An archived journal's records are read from its segments first, so that every command
        // reading it (inspect, export, import) sees it whole, from record 0.
        long liveStart = FileJournal.firstSequence(f.path());
        yield (progress, visitor) -> JournalFile.scan(f.path(), liveStart, progress, visitor);
      }
      case Postgres p -> {
        String name = name(p.location(), steward);
        yield (progress, visitor) -> {
          JournalFile.Scanner checked = JournalFile.scanner(progress);
          PostgresJournal.readLines(
              p.location(), name, line -> visitor.accept(checked.takeStored(line), line));
          return checked.end();
        };
      }
    };
  }

  /**
   * The journal a database holds: the one named, or the only one.
   *
   * @throws CliException if the one named holds no records (a mistyped key's journal would read as
   *     a whole chain of none), or none is named and the database holds none or several
   */
  static String name(PostgresLocation location, Optional<String> steward)
      throws CliException, JournalException {
    List<String> names = PostgresJournal.names(location);
    if (steward.isPresent() && names.contains(steward.get())) {
      return steward.get();
    }
    if (steward.isEmpty() && names.size() == 1) {
      return names.getFirst();
    }
    String journals =
        switch (names.size()) {
          case 0 -> "no journal";
          case 1 -> "one journal, of " + names.getFirst();
          default -> names.size() + " journals: " + String.join(", ", names);
        };
    if (steward.isPresent()) {
      throw new CliException(
          location
              + " holds no journal for "
              + steward.get()
              + ": nothing is journalled for that steward (the database holds "
              + journals
              + ")");
    }
    throw new CliException(
        location
            + " holds "
            + journals
            + (names.isEmpty() ? "" : "; name one with --steward DID or --key FILE"));
  }

  /** For messages: the file, or the database without its password. */
  static String describe(JournalTarget target) {
    return switch (target) {
      case File f -> f.path().toString();
      case Postgres p -> p.location().toString();
    };
  }
}
