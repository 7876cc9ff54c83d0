package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;

/**
 * Engine deadlines amid granted serves: four threads serve on one grant while every third engine
 * call hangs (through interrupts) past the deadline, and the test's thread signs checkpoints
 * meanwhile. Each round checks that each decision is debited once, an overrun one at its ceiling,
 * that only the receipts handed out are sealed (no late result), that a restart reaches the same
 * spend with nothing unresolved, and that every engine thread ends once the hung calls are let go.
 * 4 rounds by default, 150 under {@code -Pslow}.
 */
@Timeout(120)
class EngineDeadlineWhileServingTest {
  private static final int THREADS = 4;
  private static final long BUDGET_UJ = 1_000_000_000;
  private static final long CEILING_UJ = 70_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void overrunsAmidGrantedServes_areDebitedOnceAtTheCeiling_andNeverSealed() throws Exception {
    ServingPool.rounds(4, this::round);
  }

  @Test
  @Tag("slow")
  void overrunsAmidGrantedServes_manyRounds() throws Exception {
    ServingPool.rounds(150, this::round);
  }

  private void round(int round) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    StewardGrantTest.Delegating flaky =
        new StewardGrantTest.Delegating(ReferenceEngine.builder().name("flaky").build()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            if (calls.incrementAndGet() % 3 == 0) {
              while (release.getCount() > 0) {
                try {
                  release.await();
                } catch (InterruptedException deadline) {
                  // hangs on through the deadline's interrupt
                }
              }
            }
            return super.serve(r, p);
          }
        };
    long remaining;
    Set<Long> handedOut = new HashSet<>();
    int refused;
    try (Steward s =
        f.steward(FileJournal.open(journal))
            .backend(flaky)
            .engineDeadline(Duration.ofMillis(20))
            .checkpointEvery(2)
            .build()) {
      ServingPool serving =
          ServingPool.start(
              THREADS,
              6,
              (thread, i) -> {
                ServeRequest req =
                    GrantFixture.request(round + "/" + thread + "/" + i, 4, CEILING_UJ)
                        .withModel("flaky");
                return s.serve(req, GrantFixture.payload(req), f.present(chain, req));
              });
      for (int i = 0; i < 5; i++) {
        s.checkpoint();
      }
      serving.end();
      assertThat(serving.refused)
          .allSatisfy(e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      release.countDown();
      EngineDeadlineTest.joinEngineThreads();
      remaining = s.spend().remainingUj(chain);
      serving.handedOut.forEach(r -> handedOut.add(r.receipt().sequence()));
      assertThat(handedOut).hasSize(serving.handedOut.size());
      refused = serving.refused.size();
      assertThat(refused).as("round %d: some engine calls overran", round).isPositive();
    }
    long sealedDebits = 0;
    Map<Long, Long> debits = new HashMap<>();
    Map<Long, Integer> debitCount = new HashMap<>();
    Set<Long> sealedAuthorised = new HashSet<>();
    Set<Long> sealed = new HashSet<>();
    int decided = 0;
    for (JournalRecord r : JournalFile.read(journal).records()) {
      switch (r.entry()) {
        case JournalEntry.Authorised a -> decided++;
        case JournalEntry.Debited d -> {
          debits.put(d.authorised(), d.debitedUj());
          debitCount.merge(d.authorised(), 1, Integer::sum);
        }
        case JournalEntry.Sealed x -> {
          assertThat(sealed.add(x.sequence())).as("round %d: sealed twice", round).isTrue();
          x.authorised().ifPresent(sealedAuthorised::add);
        }
        default -> {}
      }
    }
    assertThat(sealed).as("round %d: only what was handed out", round).isEqualTo(handedOut);
    assertThat(debitCount.values()).containsOnly(1);
    assertThat(debits).hasSize(decided);
    for (Map.Entry<Long, Long> d : debits.entrySet()) {
      if (sealedAuthorised.contains(d.getKey())) {
        sealedDebits += d.getValue();
      } else {
        assertThat(d.getValue()).as("round %d: an overrun's debit", round).isEqualTo(CEILING_UJ);
      }
    }
    assertThat(debits.size() - sealedAuthorised.size()).isEqualTo(refused);
    assertThat(BUDGET_UJ - remaining).isEqualTo(sealedDebits + CEILING_UJ * refused);
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.unresolved()).isEmpty();
    }
  }
}
