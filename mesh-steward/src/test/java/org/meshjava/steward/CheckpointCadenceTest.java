package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;

/**
 * The checkpoint cadence ({@code checkpointEvery}, SPEC.md §65) when serves seal concurrently: each
 * serve appends its leaf under the chain's lock, then waits for its journal write, and only then
 * asks whether a checkpoint is due, so by the time one asks, others may have appended past the
 * multiple.
 */
class CheckpointCadenceTest {
  private final SigningKey key = SigningKey.generate();
  private final DurableMemoryJournal journal = new DurableMemoryJournal();
  private final LogKeeper keeper =
      new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, journal, 2);

  /**
   * Regression: the cadence signed only when the size a serve read was an exact multiple, so three
   * serves sealing receipts 0 to 2 together (each reading size 3) signed nothing at 2.
   */
  @Test
  void aMultiplePassedByConcurrentSeals_isSignedOnce_byTheFirstServeToLook() throws Exception {
    appendLeaves(0, 3);
    for (int serve = 0; serve < 3; serve++) {
      keeper.afterSeal();
    }
    assertThat(checkpointSizes()).containsExactly(3L);

    appendLeaves(3, 1);
    keeper.afterSeal();
    assertThat(checkpointSizes()).containsExactly(3L, 4L);
  }

  private void appendLeaves(long first, int count) {
    for (long s = first; s < first + count; s++) {
      keeper.append(s, ContentId.ofBytes(new byte[] {(byte) s}));
    }
  }

  private List<Long> checkpointSizes() throws Exception {
    List<Long> sizes = new ArrayList<>();
    for (JournalRecord r : journal.records()) {
      if (r.entry() instanceof JournalEntry.Checkpoint c) {
        sizes.add(
            Checkpoint.open(c.note(), Checkpoint.logKey(DidKey.of(key.verificationKey()))).size());
      }
    }
    return sizes;
  }
}
