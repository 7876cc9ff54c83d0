package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;

import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.identity.DidKey;

/**
 * The checks a start makes against a snapshot's header alone, when the snapshot is too large to
 * open (SPEC.md §60.8, "Size"): each refuses what opening the snapshot would, so a journal restored
 * from an older copy beside a newer snapshot is refused either way.
 */
class SnapshotHeaderTest {
  static final ContentId HASH = ContentId.ofBytes(new byte[] {1});
  static final ContentId OTHER_HASH = ContentId.ofBytes(new byte[] {2});
  static final JournalPosition AT_10 = new JournalPosition(10, Optional.of(HASH), -1);

  static SnapshotHeader header(long format, DidKey steward) {
    return new SnapshotHeader(format, steward, AT_10, 4, 1);
  }

  static JournalRecord record(long seq, ContentId prev) throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0);
    return new JournalRecord(seq, Optional.of(prev), h.records().getFirst().entry());
  }

  static void assertRefused(ThrowingCallable check, SnapshotException.Reason reason) {
    assertThatThrownBy(check)
        .isInstanceOfSatisfying(
            SnapshotException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  @Test
  void aHeaderOfThisStewardAndFormat_coveringPartOrAllOfTheJournal_passes() {
    SnapshotHeader h = header(Snapshot.FORMAT, STEWARD_ID);

    assertThatCode(() -> h.checkAgainst(STEWARD_ID, AT_10)).doesNotThrowAnyException();
    assertThatCode(
            () -> h.checkAgainst(STEWARD_ID, new JournalPosition(11, Optional.of(OTHER_HASH), -1)))
        .doesNotThrowAnyException();
  }

  @Test
  void aHeaderOfAnotherFormat_anotherSteward_aLongerHistory_orAnotherLastRecord_isRefused() {
    DidKey other = DidKey.of(OTHER.verificationKey());
    assertRefused(
        () -> header(Snapshot.FORMAT - 1, STEWARD_ID).checkAgainst(STEWARD_ID, AT_10),
        SnapshotException.Reason.UNSUPPORTED_VERSION);
    assertRefused(
        () -> header(Snapshot.FORMAT, other).checkAgainst(STEWARD_ID, AT_10),
        SnapshotException.Reason.OTHER_STEWARD);
    assertRefused(
        () ->
            header(Snapshot.FORMAT, STEWARD_ID)
                .checkAgainst(STEWARD_ID, new JournalPosition(9, Optional.of(HASH), -1)),
        SnapshotException.Reason.AHEAD_OF_JOURNAL);
    assertRefused(
        () ->
            header(Snapshot.FORMAT, STEWARD_ID)
                .checkAgainst(STEWARD_ID, new JournalPosition(10, Optional.of(OTHER_HASH), -1)),
        SnapshotException.Reason.NOT_IN_JOURNAL);
  }

  @Test
  void theRecordAfterTheCoveredPosition_mustLinkToItsHash_andOtherRecordsAreNotChecked()
      throws Exception {
    SnapshotHeader h = header(Snapshot.FORMAT, STEWARD_ID);

    assertThatCode(() -> h.checkRecordAfter(record(10, HASH))).doesNotThrowAnyException();
    assertRefused(
        () -> h.checkRecordAfter(record(10, OTHER_HASH)), SnapshotException.Reason.NOT_IN_JOURNAL);
    assertThatCode(() -> h.checkRecordAfter(record(9, OTHER_HASH))).doesNotThrowAnyException();
    assertThatCode(() -> h.checkRecordAfter(record(11, OTHER_HASH))).doesNotThrowAnyException();
  }

  @Test
  void zeroIsAFormatAndACount_andANegativeOneIsRefused() {
    assertThat(new SnapshotHeader(0, STEWARD_ID, JournalPosition.GENESIS, 0, 0).format()).isZero();
    assertThatThrownBy(() -> new SnapshotHeader(-1, STEWARD_ID, AT_10, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SnapshotHeader(0, STEWARD_ID, AT_10, -1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SnapshotHeader(0, STEWARD_ID, AT_10, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
