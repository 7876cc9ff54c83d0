package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.ChainHead;

/**
 * A cadence checkpoint the journal keeps refusing is tried again after every seal (so the log is
 * signed as soon as the journal takes it); the log says so once when it starts failing and once
 * when it recovers, not once per serve.
 */
class CheckpointFailureLogTest {
  private final SigningKey key = SigningKey.generate();
  private final DurableMemoryJournal journal = new DurableMemoryJournal();

  @Test
  void aCheckpointFailingForManySeals_warnsOnce_andSaysOnceWhenItRecovers() throws Exception {
    CheckpointCadenceTest.FlakyCheckpoints flaky =
        new CheckpointCadenceTest.FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 2);
    CheckpointCadenceTest.appendLeaves(k, 0, 2);
    for (int i = 0; i < 5; i++) {
      flaky.failures.add(new JournalException(JournalException.Reason.IO, "disk busy", null));
    }
    flaky.failures.add(new IllegalStateException("still busy"));
    String failing =
        SnapshotterFailureWordsTest.logOf(
            () -> {
              k.afterSeal();
              for (long s = 2; s < 7; s++) {
                CheckpointCadenceTest.appendLeaves(k, s, 1);
                k.afterSeal();
              }
            });
    assertThat(flaky.failures).isEmpty();
    assertThat(failing.lines().filter(l -> l.contains("WARN")))
        .singleElement()
        .asString()
        .contains("checkpoint at size 2 not journalled")
        .contains("disk busy");
    assertThat(failing).doesNotContain("INFO");

    CheckpointCadenceTest.appendLeaves(k, 7, 1);
    String recovered = SnapshotterFailureWordsTest.logOf(k::afterSeal);
    assertThat(recovered.lines().filter(l -> l.contains("INFO")))
        .singleElement()
        .asString()
        .contains("checkpoint journalled again, at size 8");
    assertThat(recovered).doesNotContain("WARN");

    // Failing again after the recovery is news again.
    flaky.failures.add(new JournalException(JournalException.Reason.IO, "disk busy again", null));
    CheckpointCadenceTest.appendLeaves(k, 8, 2);
    String again = SnapshotterFailureWordsTest.logOf(k::afterSeal);
    assertThat(again.lines().filter(l -> l.contains("WARN")))
        .singleElement()
        .asString()
        .contains("disk busy again");
  }

  /**
   * Regression: a manual checkpoint journalled after cadence checkpoints had failed left the log
   * saying only that they failed; the recovery INFO came from a cadence checkpoint alone.
   */
  @Test
  void aManualCheckpointAfterCadenceFailures_saysTheLogIsSignedAgain() throws Exception {
    CheckpointCadenceTest.FlakyCheckpoints flaky =
        new CheckpointCadenceTest.FlakyCheckpoints(journal);
    LogKeeper k = new LogKeeper.Rebuilder(key, Set.of()).finish(ChainHead.GENESIS, flaky, 2);
    CheckpointCadenceTest.appendLeaves(k, 0, 2);
    flaky.failures.add(new JournalException(JournalException.Reason.IO, "disk busy", null));
    String failing = SnapshotterFailureWordsTest.logOf(k::afterSeal);
    assertThat(failing).contains("WARN").contains("disk busy");

    CheckpointCadenceTest.appendLeaves(k, 2, 1);
    String recovered = SnapshotterFailureWordsTest.logOf(() -> k.checkpoint());
    assertThat(recovered.lines().filter(l -> l.contains("INFO")))
        .singleElement()
        .asString()
        .contains("checkpoint journalled again, at size 3");
  }
}
