package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Instant;
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
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Grant;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A presentation the decision would refuse for what it is is refused before the serve takes a
 * backend's slot (the checks of phase 2 that need no backend and no spend: §2.1's caller, the
 * chain's signatures, linkage, attenuation and holder, then each link's window, revocation, action
 * and request at a reading of the decision clock, and whether every link's budget covers the
 * ceiling): an unauthenticated client, one presenting a chain it made up, or one minting valid
 * chains the decision refuses, flooding a backend that runs one serve at a time cannot make a real
 * serve beside it find the backend busy.
 */
class ForgedPresentationSlotTest {
  final GrantFixture f = new GrantFixture();

  @Test
  void aForgedPresentation_holdsNoSlot_soAValidServeBesideItIsNotRefusedBusy() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest forgedRequest = GrantFixture.request("forged", 4, 100_000);
    // A presentation captured on the wire, given a nonce of the forger's: the signature no longer
    // covers it.
    Presentation captured = f.present(chain, forgedRequest);
    Presentation forged =
        Presentation.of(chain, captured.caller(), PresentationNonce.random(), captured.signature());

    Throwable refusal = refusalBesideAValidServe(chain, forgedRequest, forged);

    assertThat(refusal)
        .isInstanceOfSatisfying(
            NotIssuerException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE));
  }

  /**
   * Regression: a chain the client made up (a root it signed itself in the org's name, delegated to
   * the steward by its own key, and presented by that key, so the caller's check passes) took the
   * backend's slot, and the gate refused it only once inside, under the journal's lock.
   */
  @Test
  void aMadeUpChain_presentedByItsOwnLeafIssuer_holdsNoSlot_andIsRefusedAsToday() throws Exception {
    SigningKey forger = SigningKey.generate();
    GrantChain madeUp = f.madeUpChain(forger, 1_000_000);
    ServeRequest forgedRequest = GrantFixture.request("made up", 4, 100_000);

    Throwable refusal =
        refusalBesideAValidServe(
            f.chain(1_000_000), forgedRequest, Jcp.present(forger, madeUp, forgedRequest));

    // The refusal is the one the decision gives: 403 bad-signature naming the root.
    assertThat(refusal)
        .isInstanceOfSatisfying(
            GrantDeniedException.class,
            e -> {
              assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
              assertThat(e.getCause())
                  .isInstanceOfSatisfying(
                      GrantRefusedException.class, g -> assertThat(g.link()).hasValue(0));
            });
  }

  /**
   * Regression: a client holding one real grant delegated it to the steward again with a budget of
   * 0; the chain is valid in itself, so it passed the checks made before the slot, took the
   * backend's slot, and only the decision under the journal's lock refused it.
   */
  @Test
  void aSelfDelegationWithABudgetOfZero_holdsNoSlot_andIsRefusedAsToday() throws Exception {
    GrantChain root = f.rootToCaller(1_000_000);
    GrantChain zero =
        Jcp.delegate(
            f.caller,
            root,
            Grant.delegatedFrom(root.root()).subject(f.steward).budgetUj(0).build());
    ServeRequest request = GrantFixture.request("budget of zero", 4, 100_000);

    Throwable refusal =
        refusalBesideAValidServe(f.chain(1_000_000), request, f.present(zero, request));

    assertDenied(refusal, DenialLabel.BUDGET_EXHAUSTED, 1);
  }

  /**
   * Regression: as with a budget of 0, a self-delegation whose window ended before the serve took
   * the backend's slot until the decision refused it {@code expired} (GateScreenTest holds every
   * other label the screen gives to the decision's).
   */
  @Test
  void aSelfDelegationOutsideItsWindow_holdsNoSlot_andIsRefusedAsToday() throws Exception {
    GrantChain root = f.rootToCaller(1_000_000);
    Instant now = GrantFixture.NOW;
    GrantChain expired =
        Jcp.delegate(
            f.caller,
            root,
            Grant.delegatedFrom(root.root())
                .subject(f.steward)
                .window(now.minusSeconds(60), now)
                .build());
    ServeRequest request = GrantFixture.request("expired", 4, 100_000);

    Throwable refusal =
        refusalBesideAValidServe(f.chain(1_000_000), request, f.present(expired, request));

    assertDenied(refusal, DenialLabel.EXPIRED, 1);
  }

  /** The refusal the decision gives: 403 with {@code label}, naming link {@code link}. */
  private static void assertDenied(Throwable refusal, DenialLabel label, int link) {
    assertThat(refusal)
        .isInstanceOfSatisfying(
            GrantDeniedException.class,
            e -> {
              assertThat(e.label()).as(e.getMessage()).isEqualTo(label);
              assertThat(e.getCause())
                  .isInstanceOfSatisfying(
                      GrantRefusedException.class, g -> assertThat(g.link()).hasValue(link));
            });
  }

  /**
   * Serves {@code forged} for {@code forgedRequest} on a backend that runs one serve and queues
   * none, holding it wherever it gets past taking the slot (the authorise phase) or letting it go
   * once refused; serves a valid request under {@code chain} meanwhile, which must run; then
   * returns what the forged serve threw, having checked it never reached a slot.
   */
  private Throwable refusalBesideAValidServe(
      GrantChain chain, ServeRequest forgedRequest, Presentation forged) throws Exception {
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
        ExecutionException thrown =
            catchThrowableOfType(ExecutionException.class, () -> flood.get(10, TimeUnit.SECONDS));
        assertThat(thrown).as("the forged serve was refused").isNotNull();
        return thrown.getCause();
      } finally {
        release.countDown();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
