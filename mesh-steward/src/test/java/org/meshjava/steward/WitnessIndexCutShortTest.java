package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;

/**
 * The witness's twin of {@link LogSnapshotCutShortTest} for a steward with its transparency log
 * off: its index of envelope ids reads the ids a snapshot saved in place, from the file mapped into
 * memory (SPEC.md §60.8, "Reading in place"). Cut short under the running steward, a witness
 * look-up there must be refused {@code UNREADABLE} as the log's is, not thrown as a raw {@link
 * InternalError} (which the HTTP front answers as our bug), and no grant is suspended.
 */
class WitnessIndexCutShortTest {
  /** Enough ids (32 bytes each) to reach {@link CanonicalCbor#IN_PLACE_BYTES}: read in place. */
  static final int RECEIPTS = 200;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Steward open() throws Exception {
    return f.steward(FileJournal.open(dir.resolve("journal")))
        .transparencyLog(false)
        .snapshots(new FileSnapshotStore(dir.resolve("snaps")))
        .snapshotEvery(0)
        .build();
  }

  /**
   * Regression: {@code witnessed} threw "java.lang.InternalError: a fault occurred in an unsafe
   * memory access operation".
   */
  @Test
  void aSnapshotCutShortUnderTheWitnessIndex_refusesTheVerdict_typed() throws Exception {
    assertThat((long) RECEIPTS * ContentId.LENGTH)
        .isGreaterThanOrEqualTo(CanonicalCbor.IN_PLACE_BYTES);
    try (FileJournal j = FileJournal.openUnsynced(dir.resolve("journal"))) {
      for (int i = 0; i < RECEIPTS; i++) {
        j.append(new JournalEntry.Sealed(i, LogSnapshotCutShortTest.envelope(i)));
      }
    }
    ServeResult served;
    try (Steward s = open()) {
      ServeRequest r = GrantFixture.request("before the snapshot", 3, 10_000);
      served = s.serve(r, GrantFixture.payload(r));
      s.snapshot();
    }
    try (Steward s = open()) {
      assertThat(s.witnessed(served.receipt(), served.envelope()).verdict())
          .isEqualTo(WitnessVerdict.HELD);
      SnapshotCutShortWhileServingTest.cutLatestSnapshot(dir);

      LogSnapshotCutShortTest.assertUnreadable(
          () -> s.witnessed(served.receipt(), served.envelope()));
      assertThat(s.grantsSuspended()).isEmpty();
      ServeRequest r = GrantFixture.request("after the cut", 3, 10_000);
      assertThat(s.serve(r, GrantFixture.payload(r)).receipt().sequence()).isEqualTo(RECEIPTS + 1);
    }
  }
}
