package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

/**
 * Many threads present against one grant at once. An authorisation reserves its ceiling on every
 * link until its debit settles it, so debits plus reservations must never exceed any link's budget.
 * A checker thread reads every link continuously while the workers run.
 */
class ConcurrencyTest {
  private static final int THREADS = 16;
  private static final int ATTEMPTS_PER_THREAD = 120;

  @Test
  void hammeringOneGrantFromManyThreads_neverCommitsMoreThanAnyLinksBudget() throws Exception {
    long seed = System.nanoTime();
    // A tight leaf under a looser root, so both links bind at different times.
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 150 * CEILING, T0, T_END);
    GrantChain chain = Jcp.delegate(CALLER, root, STEWARD_DID, 60 * CEILING);
    Gate gate = gate();
    List<LinkBudget> links = new ArrayList<>();
    for (SignedGrant g : chain.links()) {
      links.add(new LinkBudget(g.id(), g.grant().budgetUj()));
    }

    AtomicBoolean running = new AtomicBoolean(true);
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicLong checks = new AtomicLong();
    Thread checker =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (running.get()) {
                    for (LinkBudget l : links) {
                      LinkSpend s = gate.ledger().spend(l.link());
                      if (s.committedUj() > l.budgetUj() && violations.size() < 5) {
                        violations.add(s + " exceeds budget " + l.budgetUj());
                      }
                    }
                    checks.incrementAndGet();
                    Thread.onSpinWait();
                  }
                });

    AtomicLong debitedTotal = new AtomicLong();
    AtomicLong admitted = new AtomicLong();
    AtomicLong exhausted = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Random random = new Random(seed + t);
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                      for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
                        Presentation p = Presentation.sign(CALLER, chain, REQUEST.id());
                        Authorisation a;
                        try {
                          a = gate.decide(p, REQUEST, Optional.of(WEIGHTS_A), NOW);
                        } catch (GrantRefusedException e) {
                          if (e.label() != DenialLabel.BUDGET_EXHAUSTED) {
                            throw e;
                          }
                          exhausted.incrementAndGet();
                          continue;
                        }
                        admitted.incrementAndGet();
                        if (random.nextInt(10) == 0) {
                          gate.release(a);
                        } else {
                          long metered = random.nextLong(CEILING + 1);
                          gate.debit(a, metered);
                          debitedTotal.addAndGet(metered);
                        }
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    running.set(false);
    checker.join();

    assertThat(errors).as("seed %d", seed).isEmpty();
    assertThat(violations).as("seed %d", seed).isEmpty();
    assertThat(checks.get()).isPositive();
    assertThat(exhausted.get())
        .as("the budget ran out under contention, seed %d", seed)
        .isPositive();
    for (LinkBudget l : links) {
      LinkSpend s = gate.ledger().spend(l.link());
      assertThat(s.reservedUj()).as("seed %d", seed).isZero();
      assertThat(s.debitedUj()).as("seed %d", seed).isEqualTo(debitedTotal.get());
      assertThat(s.debitedUj()).as("seed %d", seed).isLessThanOrEqualTo(l.budgetUj());
    }
    assertThat(gate.remainingUj(chain)).isLessThan(CEILING);
  }
}
