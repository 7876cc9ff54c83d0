package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * Every write outside the group commit is forced before the call that made it returns (§2.2): a
 * recovered journal's truncated tail, an unsynced journal's appends on close, an archived segment
 * and the live file that replaces it, a snapshot and the directory entry that names it. The {@link
 * Forcer} seam records each force with what the file held at that moment; a power cut cannot be
 * staged in one process, but a missing force shows here.
 */
class FileJournalForceTest {
  @TempDir Path dir;

  /** One force: the file, its length (or whether the snapshot was named yet) then, the flag. */
  record Forced(Path file, long length, boolean metaData) {}

  /** Records each force, then forces for real. */
  static final class Recorder implements Forcer {
    final List<Forced> forced = new ArrayList<>();
    private final Path watched;

    /** {@code watched}: for a directory force, its length field says whether this file exists. */
    Recorder(Path watched) {
      this.watched = watched;
    }

    @Override
    public synchronized void force(FileChannel channel, Path file, boolean metaData)
        throws java.io.IOException {
      long length = Files.isDirectory(file) ? (Files.exists(watched) ? 1 : 0) : channel.size();
      forced.add(new Forced(file, length, metaData));
      channel.force(metaData);
    }
  }

  Path journal(int n) throws JournalException {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = 0; i < n; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
    return p;
  }

  @Test
  void aTornTail_isTruncatedAndForced_beforeTheFirstAppend_andNotBefore() throws Exception {
    Path p = journal(3);
    long good = Files.size(p);
    Files.write(p, "{\"seq\":3,".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    Recorder r = new Recorder(p);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, r)) {
      assertThat(r.forced).as("opening cuts nothing").isEmpty();
      assertThat(j.position().count()).isEqualTo(3);
      j.append(FileJournalStreamTest.sealed(3));
      assertThat(r.forced).first().isEqualTo(new Forced(p.toRealPath(), good, true));
    }
  }

  @Test
  void anUnsyncedJournal_forcesItsAppendsOnClose_andASyncedOneHasNothingLeftToForce()
      throws Exception {
    Path p = dir.resolve("u.log");
    Recorder r = new Recorder(p);
    FileJournal j = FileJournal.openUnsynced(p, r);
    // the folder's entry of the new file, at opening (see aNewJournal_forcesItsFolder...)
    Forced created = new Forced(dir.toAbsolutePath(), 1, true);
    for (int i = 0; i < 5; i++) {
      j.append(FileJournalStreamTest.sealed(i));
    }
    assertThat(r.forced).containsExactly(created);
    j.close();
    assertThat(r.forced).containsExactly(created, new Forced(p.toRealPath(), Files.size(p), true));
    j.close();
    assertThat(r.forced).hasSize(2);

    Recorder synced = new Recorder(p);
    try (FileJournal s =
        FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, synced)) {
      s.append(FileJournalStreamTest.sealed(5));
    }
    assertThat(synced.forced).isEmpty();
  }

  /**
   * The archive's steps (SPEC.md 60.8): the segment folder's name when it is made, the journal's
   * marker beside it, the pending segment and its name, the live file's new beginning, the cut (the
   * journal's folder), and only then the segment's final name. The recorder watches the final name:
   * it exists at the last force alone, so no power cut keeps it while undoing the cut.
   */
  @Test
  void anArchive_forcesTheSegmentAndTheNewLiveFile_beforeItReturns() throws Exception {
    Path p = journal(10);
    List<byte[]> lines = JournalFile.read(p).lines();
    Path segment = JournalSegments.file(p.toRealPath(), 0);
    Recorder r = new Recorder(segment);
    assertThat(
            FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>(), r))
        .isEqualTo(4);
    Path pending = JournalSegments.pendingFile(p.toRealPath(), 0);
    Path segments = JournalSegments.directory(p.toRealPath());
    Path tmp = p.toRealPath().resolveSibling("j.log.archiving");
    Path folder = p.toRealPath().getParent();
    assertThat(r.forced)
        .containsExactly(
            new Forced(folder, 0, true),
            new Forced(folder, 0, true),
            new Forced(pending, Files.size(segment), true),
            new Forced(segments, 0, true),
            new Forced(tmp, Files.size(p), true),
            new Forced(folder, 0, true),
            new Forced(segments, 1, true));
    assertThat(Files.readAllLines(segment)).hasSize(4);
    assertThat(pending).doesNotExist();
  }

  /**
   * Regression: a new journal's name was never forced. Its records were forced as they were
   * appended, but the folder entry that names the file was not, so a power cut could leave them in
   * a file with no name, and the next start would find no journal (and, after an archive, a live
   * file cut with its segment's name lost). Now the folder is forced once the file is made, and an
   * archive forces the segment's folder before its rename and the journal's after it.
   */
  @Test
  void aNewJournal_forcesItsFolder_onceTheFileIsMade_andAnExistingOneDoesNot() throws Exception {
    Path p = dir.resolve("new.log");
    Recorder r = new Recorder(p);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, r)) {
      assertThat(r.forced).containsExactly(new Forced(dir.toAbsolutePath(), 1, true));
      j.append(FileJournalStreamTest.sealed(0));
    }
    Recorder again = new Recorder(p);
    try (FileJournal j =
        FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, again)) {
      assertThat(again.forced).isEmpty();
    }
  }

  @Test
  void aSnapshot_isForcedBeforeItIsNamed_andItsNameIsForcedBeforeSaveReturns() throws Exception {
    Path snaps = dir.resolve("snaps");
    Snapshot s = FileSnapshotStoreTest.at(7);
    Path target = snaps.resolve("00000000000000000007.snapshot");
    Recorder r = new Recorder(target);
    new FileSnapshotStore(snaps, r).save(s);
    Path tmp = snaps.resolve("00000000000000000007.snapshot.tmp");
    // The folder is made by this save: its name is forced in the folder above it first.
    assertThat(r.forced)
        .containsExactly(
            new Forced(dir, 0, true),
            new Forced(tmp, s.encoded().length, true),
            new Forced(snaps, 1, true));
    assertThat(Files.readAllBytes(target)).isEqualTo(s.encoded());
  }

  /** A forcer whose directory syncs fail as a failing device's do, from the {@code n}th on. */
  private static Forcer directoriesFailFrom(int n) {
    return directoriesThrow(n, "Input/output error");
  }

  /**
   * A forcer whose directory syncs fail from the {@code n}th on with the message the JDK gives for
   * {@code errno}'s text: {@code FileChannel.force} throws a bare {@link java.io.IOException}
   * carrying the C library's text for the error and nothing else.
   */
  private static Forcer directoriesThrow(int n, String strerror) {
    int[] seen = {0};
    return (channel, file, metaData) -> {
      if (Files.isDirectory(file) && ++seen[0] >= n) {
        throw new java.io.IOException(strerror);
      }
      channel.force(metaData);
    };
  }

  /**
   * Regression: a file system that cannot sync a directory (CIFS, some FUSE and network mounts)
   * answers {@code fsync} on one with {@code EINVAL}; that refused the journal's creation {@code
   * IO}, so a steward could not start on such a mount at all. It is now a platform that cannot
   * force directories, as one that cannot open them.
   */
  @Test
  void aNewJournal_onAFileSystemThatCannotSyncDirectories_opens() throws Exception {
    opensWhereDirectorySyncsAnswer("Invalid argument");
  }

  /**
   * Regression: NetBSD and some FUSE file systems answer a directory's {@code fsync} with {@code
   * EBADF} ("Bad file descriptor"), as PostgreSQL allows for; only {@code EINVAL}'s text was let
   * off, so a journal could not be created there.
   */
  @Test
  void aNewJournal_onAFileSystemAnsweringEbadfForADirectory_opens() throws Exception {
    opensWhereDirectorySyncsAnswer("Bad file descriptor");
  }

  /** A new journal opens and takes a record where its folder's sync fails with {@code strerror}. */
  private void opensWhereDirectorySyncsAnswer(String strerror) throws Exception {
    Path p = dir.resolve("new.log");
    try (FileJournal j =
        FileJournal.open(
            p, FileChannel::tryLock, FileJournal.Syncer.FORCE, directoriesThrow(1, strerror))) {
      j.append(FileJournalStreamTest.sealed(0));
    }
    assertThat(Files.readAllLines(p)).hasSize(1);
  }

  /** The same file system: a snapshot's save and an archive go through, their files in place. */
  @Test
  void aSnapshotAndAnArchive_onAFileSystemThatCannotSyncDirectories_areDone() throws Exception {
    Path snaps = dir.resolve("snaps");
    Snapshot s = FileSnapshotStoreTest.at(10);
    new FileSnapshotStore(snaps, directoriesThrow(1, "Invalid argument")).save(s);
    assertThat(Files.readAllBytes(snaps.resolve("00000000000000000010.snapshot")))
        .isEqualTo(s.encoded());

    Path p = journal(10);
    List<byte[]> lines = JournalFile.read(p).lines();
    List<JournalRecord> before = JournalArchiveTest.readAll(p, JournalPosition.GENESIS);
    FileJournal.archive(
        p,
        JournalArchiveTest.positionAt(lines, 4, -1),
        new HashMap<>(),
        directoriesThrow(1, "Invalid argument"));
    assertThat(Files.readAllLines(JournalSegments.file(p.toRealPath(), 0))).hasSize(4);
    assertThat(JournalArchiveTest.readAll(p, JournalPosition.GENESIS)).isEqualTo(before);
  }

  /**
   * Only a directory's {@code EINVAL} is let off: the same text from a file's force is a failed
   * force of the snapshot's bytes, refused {@code IO}.
   */
  @Test
  void aSnapshotFileWhoseForceFailsInvalid_isStillRefusedIo() {
    Forcer filesFail =
        (channel, file, metaData) -> {
          if (!Files.isDirectory(file)) {
            throw new java.io.IOException("Invalid argument");
          }
          channel.force(metaData);
        };
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"), filesFail);
    assertThatThrownBy(() -> store.save(FileSnapshotStoreTest.at(10)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO));
  }

  /**
   * Regression: {@code Forcer.forceDirectory} swallowed every failure, an I/O error from the device
   * as well as a platform that cannot open a directory, so a new journal whose name was never made
   * durable opened and took records as if it had been.
   */
  @Test
  void aNewJournal_whoseFolderFailsToSync_isRefusedIo() {
    Path p = dir.resolve("eio.log");
    assertThatThrownBy(
            () ->
                FileJournal.open(
                    p, FileChannel::tryLock, FileJournal.Syncer.FORCE, directoriesFailFrom(1)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains("Input/output error");
            });
  }

  /**
   * The force of the journal's folder after an archive's rename fails: the archive is refused, and
   * the segment, now the only copy of the archived records, stays where the next read finds it.
   */
  @Test
  void anArchiveWhoseRenameFailsToSync_isRefusedIo_andKeepsItsSegment() throws Exception {
    Path p = journal(10);
    List<byte[]> lines = JournalFile.read(p).lines();
    List<JournalRecord> before = JournalArchiveTest.readAll(p, JournalPosition.GENESIS);
    // The journal's folder (the segment folder made, then the marker), the segment folder (the
    // pending segment's name), then the journal's folder after the rename.
    assertThatThrownBy(
            () ->
                FileJournal.archive(
                    p,
                    JournalArchiveTest.positionAt(lines, 4, -1),
                    new HashMap<>(),
                    directoriesFailFrom(4)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.IO));
    // Still pending: the next opening names it, for the live file was cut.
    assertThat(Files.readAllLines(JournalSegments.pendingFile(p.toRealPath(), 0))).hasSize(4);
    assertThat(JournalArchiveTest.readAll(p, JournalPosition.GENESIS)).isEqualTo(before);
    assertThat(Files.readAllLines(JournalSegments.file(p.toRealPath(), 0))).hasSize(4);
  }

  @Test
  void aSnapshotWhoseFolderFailsToSync_isRefusedIo() {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"), directoriesFailFrom(1));
    assertThatThrownBy(() -> store.save(FileSnapshotStoreTest.at(10)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
              assertThat(e.getMessage()).contains("Input/output error");
            });
  }
}
