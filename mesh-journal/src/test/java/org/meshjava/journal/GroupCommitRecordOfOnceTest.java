package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.GroupCommit;

/**
 * A journal's {@code recordOf} (the record an encoded record stores) is asked once per queued
 * entry, when it is queued, where a throw fails the journal with nothing queued. Asked again by the
 * write step once the batch had left the queue, a throw there dropped the batch unwritten (the
 * close's step) or left a written batch uncounted, so its waiter got an unchecked exception for a
 * record that was on storage.
 */
class GroupCommitRecordOfOnceTest {
  private final List<Long> written = new ArrayList<>();
  private long next;

  /** A group commit whose recordOf answers once per record and throws when asked again. */
  private GroupCommit<JournalRecord> commits() {
    Set<Long> asked = new HashSet<>();
    return new GroupCommit<>(
        "test",
        -1,
        entry -> GroupCommitUncheckedStepTest.chained(next++, entry),
        r -> {
          if (!asked.add(r.seq())) {
            throw new IllegalStateException("the encoded record was asked twice");
          }
          return r;
        },
        (batch, seq) -> batch.forEach(r -> written.add(r.seq())));
  }

  private static JournalEntry sealed(long i) {
    return new JournalEntry.Sealed(i, ContentId.ofBytes(new byte[] {(byte) i, 2}));
  }

  /** Regression: the step asked recordOf for the batch's last sequence after writing it. */
  @Test
  void aWrittenBatch_isAcknowledged_withoutAskingItsRecordsAgain() throws Exception {
    GroupCommit<JournalRecord> commits = commits();
    Journal.Pending first = commits.enqueue(sealed(0));
    Journal.Pending second = commits.enqueue(sealed(1));

    first.await();
    // The second record was in the leader's batch: its wait returns, no step left to lead.
    assertThat(OtherWaiter.await(second)).as("the second waiter's failure").isNull();

    assertThat(written).containsExactly(0L, 1L);
    assertThat(commits.refusesAppends()).isEmpty();
  }

  /**
   * Regression: the close's step asked recordOf before writing, with the batch out of the queue.
   */
  @Test
  void theClosesLastWrite_writesTheQueue_withoutAskingItsRecordsAgain() throws Exception {
    GroupCommit<JournalRecord> commits = commits();
    commits.enqueue(sealed(0));
    commits.enqueue(sealed(1));

    commits.close();

    assertThat(written).as("records the close wrote").containsExactly(0L, 1L);
    assertThat(commits.failure()).isNull();
  }
}
