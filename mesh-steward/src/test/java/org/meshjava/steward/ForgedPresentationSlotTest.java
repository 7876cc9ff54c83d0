package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A presentation its caller did not sign is refused before the serve takes a backend's slot (§2.1
 * checked first in phase 2, and it needs no backend): an unauthenticated client flooding a backend
 * that runs one serve at a time cannot make a real serve beside it find the backend busy.
 */
class ForgedPresentationSlotTest {
  final GrantFixture f = new GrantFixture();

  @Test
  void aForgedPresentation_holdsNoSlot_soAValidServeBesideItIsNotRefusedBusy() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServingEngine serial =
        new ForwardingEngine(GrantFixture.ref()) {
          @Override
          public int maxConcurrentServes() {
            return 1;
          }

          @Override
          public int maxWaitingServes() {
            return 0;
          }
        };
    ServeRequest forgedRequest = GrantFixture.request("forged", 4, 100_000);
    // The forged serve is held wherever it gets past taking the slot (the authorise phase, where
    // the caller used to be checked), or let go once refused: either way the valid serve then runs
    // while the forged one is as far as it will get.
    CountDownLatch forgedStopped = new CountDownLatch(1);
    CountDownLatch forgedInSlot = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    StewardListener holdTheForged =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            if (!serve.request().equals(forgedRequest)) {
              return ServeObserver.NONE;
            }
            return new ServeObserver() {
              @Override
              public void phase(ServePhase phase) {
                if (phase == ServePhase.AUTHORISE) {
                  forgedInSlot.countDown();
                  forgedStopped.countDown();
                  try {
                    release.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }

              @Override
              public void refused(ServeException refusal) {
                forgedStopped.countDown();
              }
            };
          }
        };
    // A presentation captured on the wire, given a nonce of the forger's: the signature no longer
    // covers it.
    Presentation captured = f.present(chain, forgedRequest);
    Presentation forged =
        Presentation.of(chain, captured.caller(), PresentationNonce.random(), captured.signature());
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Steward s =
        f.bare(new DurableMemoryJournal()).backend(serial).listener(holdTheForged).build()) {
      try {
        Future<ServeResult> flood =
            pool.submit(() -> s.serve(forgedRequest, GrantFixture.payload(forgedRequest), forged));
        assertThat(forgedStopped.await(10, TimeUnit.SECONDS)).isTrue();

        ServeRequest valid = GrantFixture.request("valid", 4, 100_000);
        ServeResult served = s.serve(valid, GrantFixture.payload(valid), f.present(chain, valid));

        assertThat(served.receipt().backend()).isEqualTo("ref");
        assertThat(forgedInSlot.getCount()).as("the forged serve reached a slot").isEqualTo(1);
        assertThatThrownBy(() -> flood.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOfSatisfying(
                NotIssuerException.class,
                e -> assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
      } finally {
        release.countDown();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
