package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.StewardListener;

/**
 * A listener told of a journal write is told after the record was queued (or written): what it
 * throws then, even an Error the listener guard lets pass (a {@link StackOverflowError} from a
 * recursive listener, an {@link OutOfMemoryError}), must not reach the steward as the journal's
 * answer, since the steward would take the record as never written while the journal holds it.
 */
class ListenerErrorOnJournalWriteTest {
  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Regression: a listener's VirtualMachineError on the append of a receipt's {@code Sealed} record
   * failed that serve after the record was queued, and the chain did not advance, so the next serve
   * sealed the same sequence again: the journal held two receipts of one number and a restart
   * refused it.
   */
  @Test
  void anErrorFromTheListenerOnAnAppend_leavesTheReceiptServed_andTheJournalStartable()
      throws Exception {
    // Not a StackOverflowError: the listener guard drops that one itself
    // (ListenerStackOverflowTest).
    assertServedAndStartable(JournalWrite.Step.APPEND, () -> new InternalError("simulated"));
  }

  /**
   * Regression: the same on the sync of the {@code Sealed} record failed the serve whose receipt
   * was durable: it was journalled and never handed out, and a resend would be served again.
   */
  @Test
  void anErrorFromTheListenerOnASync_leavesTheReceiptServed() throws Exception {
    assertServedAndStartable(JournalWrite.Step.SYNC, () -> new OutOfMemoryError("simulated"));
  }

  /**
   * A listener's fault of a read of a file it mapped that was cut short is the listener's own, not
   * the JVM failing ({@code JvmFailure}): the guard drops it, and the write stands.
   */
  @Test
  void aMappedReadFaultFromTheListenerOnAnAppend_leavesTheReceiptServed() throws Exception {
    assertServedAndStartable(JournalWrite.Step.APPEND, HeldEngineFaultTest::compiledFault);
  }

  private void assertServedAndStartable(JournalWrite.Step step, Supplier<Error> error)
      throws Exception {
    AtomicInteger calls = new AtomicInteger();
    StewardListener throwsOnce =
        new StewardListener() {
          @Override
          public void journalWritten(JournalWrite write) {
            if (write.step() == step && calls.incrementAndGet() == 2) {
              throw error.get();
            }
          }
        };
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).listener(throwsOnce).build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest r = GrantFixture.request("serve " + i, 3, 50_000);
        ServeResult served;
        try {
          served = s.serve(r, GrantFixture.payload(r));
        } catch (Error e) {
          // As an assertion: a simulated OutOfMemoryError reaching JUnit would end the test JVM.
          throw new AssertionError("serve " + i + " failed: " + e, e);
        }
        assertThat(served.receipt().sequence()).isEqualTo(i);
      }
    }
    assertThat(calls).as("the listener threw").hasValueGreaterThanOrEqualTo(2);
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(3);
      assertThat(s.head()).isNotEqualTo(ChainHead.GENESIS);
    }
  }
}
