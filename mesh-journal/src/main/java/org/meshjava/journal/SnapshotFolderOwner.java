package org.meshjava.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.OwnerOnly;
import org.meshjava.journal.internal.SequenceFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which journal a snapshot folder's snapshots are: the journal's real path, kept in the file
 * {@value #FILE} in the folder by the steward that claims it for that journal (SPEC.md §60.8, "One
 * steward per folder").
 *
 * <p>Why: the folder's lock says only that some steward runs there now. Two journals configured
 * with one folder, started together, both reach for that lock; when the one whose snapshots are not
 * there took it first, it would be refused later by the snapshot it found, while the other had been
 * refused by its lock meanwhile, so neither would serve. With the owner known, a claim for another
 * journal is refused before it ever takes the lock, and the steward whose snapshots they are is
 * never turned away by it.
 *
 * <p>The record is only ever a reason to refuse while the folder holds snapshots: an empty folder
 * is anybody's to claim (the first lock taken decides), and a record naming a journal that no
 * longer exists (moved, or removed with its failed start) refuses nothing; the steward's own checks
 * of the snapshot found ("Loading") then decide, as they do for a folder with no record.
 *
 * @param dir the snapshot folder
 * @param journal the real path of the journal claiming it
 * @param snapshots the folder's snapshot files, to see whether it holds any
 */
record SnapshotFolderOwner(Path dir, Path journal, SequenceFiles snapshots) {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotFolderOwner.class);

  /** The name of the file, in the folder, that records its journal. */
  static final String FILE = SnapshotFolderClaim.JOURNAL_FILE;

  SnapshotFolderOwner {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(snapshots, "snapshots");
  }

  /**
   * The owner for {@code journal}'s claim on {@code dir}: the journal named by its real path, so
   * that a symlink to it, or a relative name, is recognised as the same journal.
   */
  static SnapshotFolderOwner of(Path dir, Path journal, SequenceFiles snapshots) {
    return new SnapshotFolderOwner(dir, realPath(journal), snapshots);
  }

  /**
   * Refuses the claim ({@code IN_USE}, naming the folder and the other journal) when the folder
   * holds snapshots and records them as another journal's, one that still exists.
   */
  void check() throws SnapshotException {
    Optional<Path> other = otherJournal();
    if (other.isPresent()) {
      throw new SnapshotException(
          SnapshotException.Reason.IN_USE,
          isBesideThisJournal()
              ? copiedWithItsJournal(other.get())
              : "snapshot folder "
                  + dir
                  + " holds the snapshots of journal "
                  + other.get()
                  + " (as its "
                  + FILE
                  + " records), not of "
                  + journal
                  + "; give each journal a snapshot folder of its own (if "
                  + other.get()
                  + " is no longer used, remove its snapshots and "
                  + dir.resolve(FILE)
                  + ")",
          null);
    }
    Optional<Path> namedFor = unrecordedBesideAnother();
    if (namedFor.isPresent()) {
      throw new SnapshotException(
          SnapshotException.Reason.IN_USE,
          "snapshot folder "
              + dir
              + " is named for journal "
              + namedFor.get()
              + ", beside it, and holds snapshots with no "
              + FILE
              + " to say whose (a version before that record wrote them), so they are taken as "
              + namedFor.get()
              + "'s, not "
              + journal
              + "'s; give "
              + journal
              + " a snapshot folder of its own (if they are "
              + journal
              + "'s, write its path, "
              + journal
              + ", as the one line of "
              + dir.resolve(FILE)
              + ")",
          null);
    }
  }

  /**
   * The refusal for this folder, named for this journal, whose record names {@code other}: the
   * folder was copied with its journal from {@code other}'s. Both hold one history, so running both
   * would let each presentation and budget be spent once in each: the record is to be cleared only
   * where this journal replaces the other.
   */
  private String copiedWithItsJournal(Path other) {
    return "snapshot folder "
        + dir
        + ", named for journal "
        + journal
        + ", records the snapshots of journal "
        + other
        + " (in its "
        + FILE
        + "): it was copied from "
        + other
        + "'s folder with the journal. Run "
        + other
        + " instead; or, if "
        + journal
        + " replaces it (running both would let each presentation and budget be spent once in"
        + " each), remove "
        + dir.resolve(FILE)
        + " (that file only: the snapshots are this journal's history too), and the next start"
        + " records "
        + journal;
  }

  /** Whether the folder is this journal's own by name: {@code <journal>.snapshots} beside it. */
  private boolean isBesideThisJournal() {
    return besides(journal).equals(realPath(dir));
  }

  /** The folder a journal at {@code file} keeps its snapshots in by default, as a real path. */
  private static Path besides(Path file) {
    return realPath(FileSnapshotStore.beside(file).directory());
  }

  /**
   * The journal, not this one, that the folder is named for and beside ({@code <journal>.snapshots}
   * next to an existing file {@code <journal>}), when the folder holds snapshots and records no
   * journal (a version before {@value #FILE} wrote them). By name they are that journal's: claimed
   * for this one, its first save would record them as this one's, and that journal's steward would
   * be refused them from then on. Empty otherwise, and for a folder named for no journal there.
   */
  private Optional<Path> unrecordedBesideAnother() throws SnapshotException {
    String name = String.valueOf(dir.getFileName());
    if (!name.endsWith(FileSnapshotStore.BESIDE)
        || name.length() == FileSnapshotStore.BESIDE.length()) {
      return Optional.empty();
    }
    Path named =
        realPath(
            dir.resolveSibling(
                name.substring(0, name.length() - FileSnapshotStore.BESIDE.length())));
    if (recorded(dir).isPresent()
        || !Files.isRegularFile(named)
        || !besides(named).equals(realPath(dir))) {
      return Optional.empty();
    }
    return anotherWithSnapshots(named);
  }

  /**
   * Records this journal as the folder's, under the folder's lock, unless the folder holds
   * snapshots not known to be this journal's: those are recorded only once this journal's steward
   * has started from them and saves (see {@link #recordOnSave(Forcer)}).
   */
  void recordIfFree(Forcer forcer) throws IOException {
    if (snapshots.list().isEmpty()) {
      write(forcer);
    } else if (recorded(dir).isEmpty() && !isBesideThisJournal()) {
      // Snapshots a version before the record wrote, in a folder named for no journal (one named
      // for another is refused by check()): nothing says whose they are, so taking them is said.
      LOG.warn(
          "snapshot folder {} holds snapshots with no {} to say whose (a version before that record"
              + " wrote them); they are taken as journal {}'s, and recorded as its own at its first"
              + " save. If they are another journal's, stop this steward and give {} a snapshot"
              + " folder of its own",
          dir,
          FILE,
          journal,
          journal);
    }
  }

  /**
   * Records this journal as the folder's before a save: its steward started from what the folder
   * held (or found it empty), so its snapshots are this journal's from now on.
   */
  void recordOnSave(Forcer forcer) throws IOException {
    if (!recorded(dir).map(journal::equals).orElse(false)) {
      write(forcer);
    }
  }

  /**
   * Writes the record, forced with its name before this returns. Its loss to a power cut matters: a
   * folder left with snapshots and no record (or an empty one, its bytes never written) is taken by
   * its name alone, so a copy of the journal and this folder made afterwards under another name
   * would no longer be refused while the original runs, and both would spend each budget (SPEC.md
   * 60.8, "Whose snapshots a folder holds"). Written at a claim or a first save only, so the forces
   * cost nothing a steward notices.
   */
  private void write(Forcer forcer) throws IOException {
    forcer.createDirectories(dir);
    Path file = dir.resolve(FILE);
    Path tmp = dir.resolve(FILE + ".tmp");
    // Whole or not at all, for a claim that reads it without the lock. Made and written through
    // one opening, which follows no link: what is swapped in at the name is not written to.
    try (java.nio.channels.FileChannel ch = OwnerOnly.writeAfresh(tmp)) {
      ch.write(java.nio.ByteBuffer.wrap((journal + "\n").getBytes(StandardCharsets.UTF_8)));
      forcer.force(ch, tmp, true);
    }
    FileSnapshotStore.replace(tmp, file);
    forcer.forceDirectory(dir);
  }

  /**
   * The other journal whose snapshots the folder holds: recorded, still present and not this
   * journal's file by another name; empty otherwise, and when the folder holds no snapshot.
   */
  private Optional<Path> otherJournal() throws SnapshotException {
    Optional<Path> recorded = recorded(dir);
    if (recorded.isEmpty() || !Files.exists(recorded.get())) {
      return Optional.empty();
    }
    return anotherWithSnapshots(recorded.get());
  }

  /**
   * {@code other}, an existing journal file, when it is not this journal (by name, nor as the same
   * file by another name) and the folder holds snapshots; empty otherwise.
   */
  private Optional<Path> anotherWithSnapshots(Path other) throws SnapshotException {
    try {
      if (other.equals(journal) || (Files.exists(journal) && Files.isSameFile(other, journal))) {
        return Optional.empty();
      }
      return snapshots.list().isEmpty() ? Optional.empty() : Optional.of(other);
    } catch (IOException e) {
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "cannot read snapshot folder " + dir + ": " + FailureWords.of(e),
          e);
    }
  }

  /**
   * The journal {@code dir} records, if it records one that can be read; a part written or
   * unreadable record counts as none, and so does one that is not a regular file or is larger than
   * any path ({@link #MAX_RECORD_BYTES}): a named pipe there would make the read wait for ever, and
   * {@code /dev/zero} or a huge file would fill the heap, at every steward's start.
   */
  static Optional<Path> recorded(Path dir) {
    Path file = dir.resolve(FILE);
    try {
      if (!Files.isRegularFile(file) || Files.size(file) > MAX_RECORD_BYTES) {
        return Optional.empty();
      }
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (!text.endsWith("\n") || text.length() < 2) {
        return Optional.empty();
      }
      return Optional.of(Path.of(text.substring(0, text.length() - 1)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The largest record read: a path and its newline, with room to spare. */
  static final int MAX_RECORD_BYTES = 64 * 1024;

  /**
   * What the folder's lock refusal adds: the journal whose snapshots it records, so the operator
   * sees which other steward it is.
   */
  static String describe(Path dir) {
    return recorded(dir).map(j -> "; its snapshots are recorded as journal " + j + "'s").orElse("");
  }

  /** {@code journal}'s real path, or its absolute path where it does not exist yet. */
  static Path realPath(Path journal) {
    try {
      return journal.toRealPath();
    } catch (IOException e) {
      return journal.toAbsolutePath().normalize();
    }
  }
}
