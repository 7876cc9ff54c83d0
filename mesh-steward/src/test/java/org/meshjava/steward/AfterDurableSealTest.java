package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalPosition;

/**
 * What the steward does after a receipt is journalled durably (a checkpoint on the log's cadence, a
 * snapshot on the journal's) is an optimisation: its failure is warned of and the receipt handed
 * out, never a throw into a caller whose receipt the journal already holds (a resend would be
 * served and charged again).
 */
class AfterDurableSealTest {
  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** A journal whose {@code position()} throws once armed, as a broken decorator's may. */
  private static final class PositionBreaks extends ForwardingJournal {
    volatile boolean broken;

    PositionBreaks(Journal journal) {
      super(journal);
    }

    @Override
    public JournalPosition position() {
      if (broken) {
        throw new IllegalStateException("position unreadable");
      }
      return super.position();
    }
  }

  /**
   * Regression: the snapshot cadence read {@code journal.position()} after the receipt was durable,
   * outside any guard, so the serve threw "IllegalStateException: position unreadable" and its
   * journalled receipt was never handed out.
   */
  @Test
  void aSnapshotCadenceThatThrows_afterTheReceiptIsDurable_isWarned_andTheReceiptHandedOut()
      throws Exception {
    PositionBreaks journal =
        new PositionBreaks(FileJournal.openUnsynced(dir.resolve("steward.journal")));
    try (Steward s =
        f.steward(journal).snapshots(new KeepingSnapshotStore()).snapshotEvery(1).build()) {
      journal.broken = true;
      ServeRequest req = GrantFixture.request("after the seal", 1, 30_000);
      ServeResult[] served = new ServeResult[1];

      String log =
          SnapshotterFailureWordsTest.logOf(
              () -> served[0] = s.serve(req, GrantFixture.payload(req)));

      assertThat(served[0].receipt().sequence()).isZero();
      assertThat(log)
          .contains(
              "queuing a journal snapshot failed after a receipt was journalled; the receipt is"
                  + " handed out: java.lang.IllegalStateException: position unreadable");
      journal.broken = false;
      assertThat(s.head().nextSequence()).isEqualTo(1);
    }
  }

  /**
   * A journal whose {@code position()} stays broken is tried at every seal but warned of once, as
   * the log's checkpoint cadence is; it is said at INFO when it runs through again.
   *
   * <p>Regression: each serve logged the same WARN, one line per receipt for as long as the journal
   * stayed broken.
   */
  @Test
  void aSnapshotCadenceThatKeepsThrowing_isWarnedOnce_untilItRunsThroughAgain() throws Exception {
    PositionBreaks journal =
        new PositionBreaks(FileJournal.openUnsynced(dir.resolve("steward.journal")));
    try (Steward s =
        f.steward(journal).snapshots(new KeepingSnapshotStore()).snapshotEvery(100).build()) {
      journal.broken = true;
      String log =
          SnapshotterFailureWordsTest.logOf(
              () -> {
                for (int i = 0; i < 3; i++) {
                  ServeRequest req = GrantFixture.request("seal " + i, 1, 30_000);
                  assertThat(s.serve(req, GrantFixture.payload(req)).receipt().sequence())
                      .isEqualTo(i);
                }
                journal.broken = false;
                ServeRequest req = GrantFixture.request("mended", 1, 30_000);
                s.serve(req, GrantFixture.payload(req));
              });

      assertThat(log.split("queuing a journal snapshot failed", -1)).hasSize(2);
      assertThat(log).contains("queuing a journal snapshot runs through again after a seal");
    }
  }
}
