package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.SealedReceipt;

/**
 * A witness's evidence that suspends grants (§2.2) arriving while a granted serve is on its way to
 * the gate: the suspension and the grant decision are ordered by the decision lock, so a decision
 * that reaches the gate after the suspension is refused, and none is journalled after it.
 */
@Timeout(60)
class SuspensionRaceTest {
  final GrantFixture f = new GrantFixture();
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch clockRead = new CountDownLatch(1);
  final CountDownLatch suspended = new CountDownLatch(1);

  @AfterEach
  void stop() {
    suspended.countDown();
    threads.shutdownNow();
  }

  /**
   * Regression: the suspension was checked before the decision lock and set (and journalled)
   * outside it, so a serve that had passed the check went on to be decided and journalled after the
   * {@code Suspended} record, and was served on a suspended steward.
   */
  @Test
  void aGrantedServeThatReachesTheGateAfterASuspension_isRefused_andNothingIsDecidedAfterIt()
      throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    // The serve's thread reads the clock between the suspension check and the gate; it is held
    // there until the witness has suspended grants. Only that reading is held: the serve reads the
    // clock once before, to screen its chain before it takes a slot (Authoriser.authenticate).
    InstantSource held =
        () -> {
          if (Thread.currentThread().getName().startsWith("granted-serve")
              && StackWalker.getInstance()
                  .walk(
                      frames ->
                          frames.anyMatch(
                              frame ->
                                  frame.getClassName().equals(Authoriser.class.getName())
                                      && frame.getMethodName().equals("authorise")))) {
            clockRead.countDown();
            try {
              suspended.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return GrantFixture.NOW;
        };
    try (Steward s = f.steward(journal).clock(held).build()) {
      ServeRequest plain = GrantFixture.request("plain", 4, 100_000);
      ServeResult first = s.serve(plain, GrantFixture.payload(plain));
      MeshReceipt notRecorded =
          first.receipt().toBuilder().chain(5, Optional.of(first.envelope().id())).build();
      SealedReceipt cut = Jcr1.seal(notRecorded, f.stewardKey);

      GrantChain chain = f.chain(1_000_000);
      ServeRequest granted = GrantFixture.request("granted", 4, 70_000);
      Presentation presented = f.present(chain, granted);
      Future<Object> serve =
          threads.submit(
              () -> {
                Thread.currentThread().setName("granted-serve");
                try {
                  return s.serve(granted, GrantFixture.payload(granted), presented);
                } catch (ServeException e) {
                  return e;
                }
              });
      assertThat(clockRead.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(s.witness(cut.receipt(), cut.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
      suspended.countDown();

      assertThat(serve.get(10, TimeUnit.SECONDS)).isInstanceOf(GrantsSuspendedException.class);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
    }
    List<JournalRecord> records = journal.records();
    int suspension = indexOf(records, JournalEntry.Suspended.class);
    assertThat(suspension).isNotNegative();
    assertThat(records.subList(suspension, records.size()))
        .noneMatch(r -> r.entry() instanceof JournalEntry.Authorised);
  }

  private static int indexOf(List<JournalRecord> records, Class<?> type) {
    for (int i = 0; i < records.size(); i++) {
      if (type.isInstance(records.get(i).entry())) {
        return i;
      }
    }
    return -1;
  }
}
