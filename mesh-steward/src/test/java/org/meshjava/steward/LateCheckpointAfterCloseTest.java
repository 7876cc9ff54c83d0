package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;

/**
 * A serve that seals as its steward closes may reach its cadence checkpoint after the journal has
 * closed. Nothing failed and no seal follows to try again: the log says what happened, once, not
 * the WARN of a journal that keeps refusing checkpoints.
 */
class LateCheckpointAfterCloseTest {

  /**
   * Regression: it warned "checkpoint at size 2 not journalled, tried again after each seal",
   * sending an operator after a journal fault that was not there.
   */
  @Test
  void aCadenceCheckpointAfterTheJournalClosed_saysSo_withoutAWarning() throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    LogKeeper k =
        new LogKeeper.Rebuilder(SigningKey.generate(), Set.of())
            .finish(ChainHead.GENESIS, journal, 2);
    CheckpointCadenceTest.appendLeaves(k, 0, 2);
    journal.close();

    String log = SnapshotterFailureWordsTest.logOf(k::afterSeal);

    assertThat(log).doesNotContain("WARN");
    assertThat(log.lines().filter(l -> l.contains("INFO")))
        .singleElement()
        .asString()
        .contains("checkpoint at size 2 not journalled: the journal was closed with its steward");
  }
}
