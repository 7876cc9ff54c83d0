package org.meshjava.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.Objects;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.internal.SnapshotHeaderReader;

/**
 * What a snapshot says about itself, read without its body's large sections and without its
 * signature: the format, the steward it names, the journal position it covers and the counts of
 * decisions replayed. For a start whose latest snapshot is too large to read ({@code TOO_LARGE},
 * SPEC.md §60.8 "Size"): the steward then replays the whole journal, and checks the journal against
 * this header as a start from the snapshot checks it against the snapshot, so a journal restored
 * from an older copy beside a newer snapshot is still refused.
 *
 * <p>Nothing here is authenticated: the signature covers the digest of the whole body, which is
 * what could not be read. A header that fails a check therefore refuses the start exactly as the
 * snapshot itself would (the operator's remedy is the same: remove the snapshot to replay the whole
 * journal), but one that passes proves nothing about who wrote it. Immutable, so thread-safe.
 *
 * @param format the snapshot format it names
 * @param steward the steward it names
 * @param position the journal position it covers
 * @param authorisations the authorisations replayed up to that position
 * @param revocations the revocations replayed up to that position
 */
public record SnapshotHeader(
    long format, DidKey steward, JournalPosition position, long authorisations, long revocations) {

  /** Validates the header. */
  public SnapshotHeader {
    Objects.requireNonNull(steward, "steward");
    Objects.requireNonNull(position, "position");
    if (format < 0 || authorisations < 0 || revocations < 0) {
      throw new IllegalArgumentException("format and counts are not negative");
    }
  }

  /**
   * Reads the header of the snapshot file open on {@code file}, from its start; the large byte
   * strings before it (receipt ids, tree levels, spent pairs) are skipped, not read.
   *
   * @throws SnapshotException {@code MALFORMED} if the file does not hold a snapshot's header
   * @throws IOException if the file cannot be read
   */
  static SnapshotHeader read(FileChannel file) throws SnapshotException, IOException {
    return SnapshotHeaderReader.read(file.size(), file::read);
  }

  /**
   * Checks that this header is {@code self}'s, in the format this implementation writes, and that
   * {@code journalEnd} holds the history it covers, as {@link Snapshot#open} and {@link
   * Snapshot#checkAgainst} do. The hash of the covered position is checked here only when the
   * journal ends there; otherwise {@link #checkRecordAfter} checks it as the replay reaches it.
   *
   * @throws SnapshotException {@code UNSUPPORTED_VERSION}, {@code OTHER_STEWARD}, {@code
   *     AHEAD_OF_JOURNAL} or {@code NOT_IN_JOURNAL}
   */
  public void checkAgainst(DidKey self, JournalPosition journalEnd) throws SnapshotException {
    Snapshot.checkFormat(format);
    Snapshot.checkSteward(steward.value(), self);
    Snapshot.checkAgainst(position, journalEnd);
  }

  /**
   * Checks that {@code record}, if it is the one that follows the covered position, links to the
   * hash this header gives that position.
   *
   * @throws SnapshotException {@code NOT_IN_JOURNAL} if it links to another record
   */
  public void checkRecordAfter(JournalRecord record) throws SnapshotException {
    if (record.seq() == position.count() && !record.prev().equals(position.lastHash())) {
      throw Snapshot.notInJournal(position.count());
    }
  }
}
