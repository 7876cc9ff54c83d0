package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.LogException;

/**
 * The tree's snapshot file is cut short between a checkpoint's journalling and its publication: the
 * publication's read faults (here the fault a compiled read held back, put in through the keeper's
 * {@code heldFaults}), and the checkpoint is refused {@code UNREADABLE}, as every later read of the
 * tree is, never as a log that cannot publish what it signed.
 */
class CheckpointPublishCutShortTest {
  private volatile boolean faultHeld;

  /** The stand-in for {@code deliverPending}: throws the fault held back, once. */
  private void heldFault() {
    if (faultHeld) {
      faultHeld = false;
      throw HeldEngineFaultTest.compiledFault();
    }
  }

  @Test
  void aFaultAsTheJournalledCheckpointIsPublished_isRefusedUnreadable_andSoIsTheTreeAfter()
      throws Exception {
    ForwardingJournal cutWhileJournalled =
        new ForwardingJournal(new DurableMemoryJournal()) {
          @Override
          public Pending enqueue(JournalEntry entry) throws JournalException {
            if (entry instanceof JournalEntry.Checkpoint) {
              faultHeld = true; // the next read of the tree meets the file cut short
            }
            return super.enqueue(entry);
          }
        };
    LogKeeper keeper =
        new LogKeeper.Rebuilder(SigningKey.generate(), Set.of())
            .finish(ChainHead.GENESIS, cutWhileJournalled, 100, this::heldFault);
    CheckpointCadenceTest.appendLeaves(keeper, 0, 2);

    Throwable t = catchThrowable(keeper::checkpoint);

    assertThat(t)
        .isInstanceOfSatisfying(
            LogException.class,
            e -> assertThat(e.reason()).isEqualTo(LogException.Reason.UNREADABLE));
    assertThat(t.getMessage()).contains("was cut short while the steward ran");
    assertThat(catchThrowable(() -> keeper.prove(0)))
        .isInstanceOfSatisfying(
            LogException.class,
            e -> assertThat(e.reason()).isEqualTo(LogException.Reason.UNREADABLE));
  }
}
