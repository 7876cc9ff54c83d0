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
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A granted serve's caller signature, and its chain's signatures, are checked before the lock that
 * orders the journal: a serve whose {@code Authorised} record is still being queued (a slow journal
 * write, here one held on a latch) holds that lock, and a presentation beside it that is not signed
 * for its request, or whose chain is made up, is refused {@code bad-signature} meanwhile.
 * Regression: each check ran inside the lock, so the forged presentation waited for the other
 * serve's journal write, and concurrent granted serves verified their callers' signatures (a third
 * of a granted serve's CPU) and their chains' one at a time.
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
    GrantChain chain = f.chain(1_000_000);
    ServeRequest first = GrantFixture.request("first", 3, 50_000);
    // Signed by the caller, but for the first request: not for the second.
    Throwable refusal =
        refusalWhileAnotherServeIsJournalled(chain, second -> f.present(chain, first), first);

    assertThat(refusal)
        .isInstanceOfSatisfying(
            NotIssuerException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
  }

  /**
   * Regression: a chain made up by its presenter (a root signed in the org's name by the
   * presenter's own key) was verified only by the gate under the journal's lock, so it waited there
   * behind the other serve's journal write, as every granted serve's chain verification did.
   */
  @Test
  void aMadeUpChain_isRefusedWhileAnotherServesAuthorisationIsBeingJournalled() throws Exception {
    SigningKey forger = SigningKey.generate();
    GrantChain madeUp = f.madeUpChain(forger, 1_000_000);

    Throwable refusal =
        refusalWhileAnotherServeIsJournalled(
            f.chain(1_000_000),
            second -> Jcp.present(forger, madeUp, second),
            GrantFixture.request("first", 3, 50_000));

    assertThat(refusal)
        .isInstanceOfSatisfying(
            GrantDeniedException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
  }

  /** What a presentation is made of for the second request. */
  private interface Presenting {
    Presentation of(ServeRequest second) throws Exception;
  }

  /**
   * Serves {@code first} under {@code chain}, holding its {@code Authorised} record's queueing (and
   * so the lock that orders the journal) until a second serve, presented by {@code second}, has
   * ended; returns what that second serve threw, and checks the first then serves.
   */
  private Throwable refusalWhileAnotherServeIsJournalled(
      GrantChain chain, Presenting second, ServeRequest first) throws Exception {
    HeldAuthorised journal = new HeldAuthorised(new DurableMemoryJournal());
    ServeRequest secondRequest = GrantFixture.request("second", 3, 50_000);
    Presentation presented = second.of(secondRequest);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Steward s = f.bare(journal).backend(GrantFixture.ref()).build()) {
      Future<ServeResult> held =
          pool.submit(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)));
      assertThat(journal.entered.await(30, TimeUnit.SECONDS))
          .as("the first serve reached its journal write")
          .isTrue();
      Future<Throwable> refused =
          pool.submit(
              () -> {
                try {
                  s.serve(secondRequest, GrantFixture.payload(secondRequest), presented);
                  return null;
                } catch (Throwable t) {
                  return t;
                }
              });
      Throwable refusal;
      try {
        refusal = refused.get(30, TimeUnit.SECONDS);
      } finally {
        journal.release.countDown();
      }
      assertThat(held.get(30, TimeUnit.SECONDS)).isNotNull();
      return refusal;
    } finally {
      pool.shutdownNow();
    }
  }
}
