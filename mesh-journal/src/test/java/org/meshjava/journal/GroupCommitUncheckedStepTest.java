package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.GroupCommit;

/**
 * A journal's write step that throws an unchecked exception or an error (a driver's own bug, an
 * {@code OutOfMemoryError} while a large batch is encoded) fails the journal as a checked failure
 * does. Before, the batch was dropped from the queue without failing the journal: its other waiters
 * led again, and the next record enqueued was written alone, past the lost ones, and acknowledged
 * theirs too, so a receipt was handed out that no record holds, and the stored journal had a gap
 * that refused every later start. Queueing a record that throws unchecked fails it too.
 */
class GroupCommitUncheckedStepTest {
  private final List<Long> written = new ArrayList<>();
  private final AtomicBoolean breakNext = new AtomicBoolean(true);
  private final AtomicBoolean breakRecordOf = new AtomicBoolean();
  private Supplier<RuntimeException> accessorBreak =
      () -> new IllegalStateException("the record's accessor broke");
  private Supplier<RuntimeException> stepBreak =
      () -> new IllegalStateException("the driver broke while encoding the batch");
  private long next;

  /**
   * An exception whose words cannot be read: its {@code getMessage()} throws (a library's lazy
   * message), as a second {@code OutOfMemoryError} would while a message is built after the heap
   * ran out.
   */
  private static final class Undescribable extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    @Override
    public String getMessage() {
      throw new IllegalStateException("the message could not be built");
    }
  }

  private GroupCommit<JournalRecord> commits() {
    return new GroupCommit<>(
        "test",
        -1,
        entry -> chained(next++, entry),
        r -> {
          if (breakRecordOf.getAndSet(false)) {
            throw accessorBreak.get();
          }
          return r;
        },
        (batch, seq) -> {
          if (breakNext.getAndSet(false)) {
            throw stepBreak.get();
          }
          batch.forEach(r -> written.add(r.seq()));
        });
  }

  /** {@code entry} as the one record at {@code seq}, chained to a stand-in for the one before. */
  static List<JournalRecord> chained(long seq, JournalEntry entry) {
    Optional<ContentId> prev =
        seq == 0 ? Optional.empty() : Optional.of(ContentId.ofBytes(new byte[] {(byte) seq}));
    return List.of(new JournalRecord(seq, prev, entry));
  }

  private static JournalEntry sealed(long i) {
    return new JournalEntry.Sealed(i, ContentId.ofBytes(new byte[] {(byte) i, 1}));
  }

  @Test
  void aStepThatThrowsUnchecked_failsTheJournal_andAcknowledgesNoRecordOfItsBatch()
      throws Exception {
    GroupCommit<JournalRecord> commits = commits();
    Journal.Pending first = commits.enqueue(sealed(0));
    Journal.Pending second = commits.enqueue(sealed(1));

    // The leader's batch holds both records; its step throws.
    Throwable leader = catchThrowable(first::await);
    // A later serve appends as it would, if the journal lets it.
    try {
      commits.enqueue(sealed(2));
    } catch (JournalException refused) {
      assertThat(refused.reason()).isEqualTo(JournalException.Reason.FAILED);
    }

    // The other waiter of the failed batch is refused, never acknowledged.
    assertThat(OtherWaiter.await(second))
        .as("the second record of the failed batch was acknowledged")
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    assertThat(written).as("records written after the failed batch").isEmpty();
    assertThat(leader)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
              assertThat(e).hasMessageContaining("the driver broke while encoding the batch");
            });
    assertThat(commits.refusesAppends()).isPresent();
  }

  @Test
  void aStepThatThrowsAnError_failsTheJournal_andTheErrorStillReachesTheLeader() {
    GroupCommit<JournalRecord> commits =
        new GroupCommit<>(
            "test",
            -1,
            entry -> List.of(new JournalRecord(0, Optional.empty(), entry)),
            r -> r,
            (batch, seq) -> {
              throw new OutOfMemoryError("Java heap space");
            });
    Journal.Pending only;
    try {
      only = commits.enqueue(sealed(0));
    } catch (JournalException e) {
      throw new AssertionError(e);
    }
    assertThatThrownBy(only::await).isInstanceOf(OutOfMemoryError.class);
    assertThat(commits.refusesAppends())
        .hasValueSatisfying(why -> assertThat(why).contains("Java heap space"));
  }

  @Test
  void aStepThatThrowsUnchecked_atTheClosesLastWrite_failsTheJournalNamingTheBatchsLastRecord()
      throws Exception {
    GroupCommit<JournalRecord> commits = commits();
    // Queued and not yet led: the close writes them, and that step throws.
    commits.enqueue(sealed(0));
    commits.enqueue(sealed(1));

    assertThat(commits.close()).isTrue();

    assertThat(written).as("records written by the failed close").isEmpty();
    JournalException failure = commits.failure();
    assertThat(failure).isNotNull();
    assertThat(failure.reason()).isEqualTo(JournalException.Reason.FAILED);
    assertThat(failure.seq()).hasValue(1);
    assertThat(failure).hasMessageContaining("the driver broke while encoding the batch");
  }

  /**
   * Queueing an entry's records throws unchecked after the chain moved past them (here the record's
   * accessor; in a journal, the heap running out while the pending write is made or the queue
   * grows). Before, the records were queued first and the throw came after: the caller was told the
   * append failed, with an unchecked exception that says nothing of the record, and the next step
   * wrote it all the same, so a steward that let a grant's hold go on that answer was ahead of its
   * journal. Now nothing is queued, the journal fails (a later record would follow a gap), and the
   * caller is told {@code FAILED}: a {@code JournalException}, which says the record is not in it.
   *
   * <p>Regression: the caller got the IllegalStateException and record 0 was written later.
   */
  @Test
  void aThrowWhileQueueing_failsTheJournal_andTheRecordIsNeverWritten() {
    breakNext.set(false);
    breakRecordOf.set(true);
    GroupCommit<JournalRecord> commits = commits();

    assertThatThrownBy(() -> commits.enqueue(sealed(0)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED))
        .hasMessageContaining("the record's accessor broke");
    assertThat(commits.refusesAppends())
        .hasValueSatisfying(why -> assertThat(why).contains("the record's accessor broke"));
    assertThatThrownBy(() -> commits.enqueue(sealed(1))).isInstanceOf(JournalException.class);
    commits.close();

    assertThat(written).isEmpty();
  }

  /**
   * A throw while queueing that cannot be put into words still fails the journal: the chain has
   * moved past the record, and a record appended after it would follow a gap.
   *
   * <p>Regression: building the {@code FAILED} answer threw first, so the journal was never failed,
   * the caller got the message's exception, and record 1 was written past the lost 0.
   */
  @Test
  void anUndescribableThrowWhileQueueing_stillFailsTheJournal() {
    breakNext.set(false);
    breakRecordOf.set(true);
    accessorBreak = Undescribable::new;
    GroupCommit<JournalRecord> commits = commits();

    assertThatThrownBy(() -> commits.enqueue(sealed(0)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    refusesAndWritesNothing(commits);
  }

  /**
   * A step's throw that cannot be put into words still fails the journal.
   *
   * <p>Regression: the failure was never recorded, so the leader's batch was lost while the next
   * record was written alone past it.
   */
  @Test
  void anUndescribableThrowFromTheStep_stillFailsTheJournal() throws Exception {
    stepBreak = Undescribable::new;
    GroupCommit<JournalRecord> commits = commits();
    Journal.Pending first = commits.enqueue(sealed(0));

    assertThatThrownBy(first::await)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    refusesAndWritesNothing(commits);
  }

  /** The journal failed: a later append is refused, and nothing was or will be written. */
  private void refusesAndWritesNothing(GroupCommit<JournalRecord> commits) {
    assertThat(commits.refusesAppends()).isPresent();
    assertThatThrownBy(() -> commits.enqueue(sealed(1))).isInstanceOf(JournalException.class);
    commits.close();
    assertThat(written).isEmpty();
  }
}
