package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A granted serve's caller signature is checked before the lock that orders the journal: a serve
 * whose {@code Authorised} record is still being queued (a slow journal write, here one held on a
 * latch) holds that lock, and a presentation beside it that is not signed for its request is
 * refused {@code bad-signature} meanwhile. Regression: the check ran inside the lock, so the forged
 * presentation waited for the other serve's journal write, and concurrent granted serves verified
 * their callers' signatures (a third of a granted serve's CPU) one at a time.
 */
class CallerCheckedOutsideTheJournalLockTest {
  private final GrantFixture f = new GrantFixture();

  /** Holds the first {@code Authorised} record's queueing until {@code release} is counted down. */
  private static final class HeldAuthorised extends ForwardingJournal {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean held = new AtomicBoolean();

    HeldAuthorised(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      if (entry instanceof JournalEntry.Authorised && held.compareAndSet(false, true)) {
        entered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.enqueue(entry);
    }
  }

  @Test
  void aForgedPresentation_isRefusedWhileAnotherServesAuthorisationIsBeingJournalled()
      throws Exception {
    HeldAuthorised journal = new HeldAuthorised(new DurableMemoryJournal());
    GrantChain chain = f.chain(1_000_000);
    ServeRequest first = GrantFixture.request("first", 3, 50_000);
    ServeRequest second = GrantFixture.request("second", 3, 50_000);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Steward s = f.bare(journal).backend(GrantFixture.ref()).build()) {
      Future<ServeResult> held =
          pool.submit(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)));
      assertThat(journal.entered.await(30, TimeUnit.SECONDS))
          .as("the first serve reached its journal write")
          .isTrue();
      // Signed by the caller, but for the first request: not for the second.
      Future<Throwable> forged =
          pool.submit(
              () -> {
                try {
                  s.serve(second, GrantFixture.payload(second), f.present(chain, first));
                  return null;
                } catch (Throwable t) {
                  return t;
                }
              });
      Throwable refusal;
      try {
        refusal = forged.get(30, TimeUnit.SECONDS);
      } finally {
        journal.release.countDown();
      }
      assertThat(refusal)
          .isInstanceOfSatisfying(
              NotIssuerException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
      assertThat(held.get(30, TimeUnit.SECONDS)).isNotNull();
    } finally {
      pool.shutdownNow();
    }
  }
}
