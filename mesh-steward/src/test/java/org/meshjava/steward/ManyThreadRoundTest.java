package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * Every seam at once: five threads serve on two grants (one small enough to run out) and without
 * one, on a backend whose every third call blocks until the engine deadline interrupts it; a
 * listener throws and stalls; other threads sign checkpoints, witness held receipts, take
 * snapshots, revoke the second grant, show a receipt the journal lacks (suspending grants), and
 * close the steward while all that runs. Each round checks that no grant was spent past its budget,
 * that each decision was debited once and each sealed receipt's debit is its energy, that every
 * receipt handed out was journalled and none sealed twice, that a restart reaches the same spend
 * with nothing unresolved, and that no thread is left blocked once the close returned. 2 rounds by
 * default; 60 under {@code -Pslow}.
 */
@Timeout(300)
class ManyThreadRoundTest {
  private static final int SERVERS = 5;
  private static final long CEILING_UJ = 70_000;
  private static final long SMALL_BUDGET_UJ = 12 * CEILING_UJ;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void everySeamAtOnce_keepsSpendReceiptsAndThreadsInOrder() throws Exception {
    ServingPool.rounds(2, this::round);
  }

  @Test
  @Tag("slow")
  void everySeamAtOnce_manyRounds() throws Exception {
    ServingPool.rounds(60, this::round);
  }

  /** Two threads build stewards on one in-memory journal at once: exactly one gets it. */
  @Test
  void twoStewardsBuiltAtOnceOnOneInMemoryJournal_oneIsRefused() throws Exception {
    for (int round = 0; round < 20; round++) {
      InMemoryJournal journal = new InMemoryJournal();
      CyclicBarrier together = new CyclicBarrier(2);
      List<Steward> built = new ArrayList<>();
      List<Throwable> refused = new ArrayList<>();
      try (ExecutorService two = Executors.newFixedThreadPool(2)) {
        List<Future<Steward>> both = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          both.add(
              two.submit(
                  () -> {
                    together.await();
                    return f.steward(journal).build();
                  }));
        }
        for (Future<Steward> each : both) {
          try {
            built.add(each.get(30, TimeUnit.SECONDS));
          } catch (java.util.concurrent.ExecutionException e) {
            refused.add(e.getCause());
          }
        }
      }
      assertThat(built).as("round %d", round).hasSize(1);
      assertThat(refused).singleElement().isInstanceOf(StewardStartException.class);
      ServeRequest r = GrantFixture.request("only " + round, 4, CEILING_UJ);
      assertThat(built.getFirst().serve(r, GrantFixture.payload(r)).receipt().sequence()).isZero();
      built.getFirst().close();
    }
  }

  private void round(int round) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    FileSnapshotStore store = FileSnapshotStore.beside(journal);
    GrantChain big = f.chain(1_000_000_000);
    GrantChain small = f.chain(SMALL_BUDGET_UJ);
    ConcurrentLinkedQueue<ServeResult> handedOut = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    AtomicInteger engineFailed = new AtomicInteger();
    CountDownLatch enough = new CountDownLatch(3 * SERVERS);
    CountDownLatch afterSuspension = new CountDownLatch(3 * SERVERS);
    AtomicBoolean closing = new AtomicBoolean();
    Interrupted stuck = new Interrupted();
    Steward s =
        f.steward(FileJournal.open(journal))
            .backend(stuck)
            .snapshots(store)
            .snapshotEvery(5)
            .checkpointEvery(3)
            .engineDeadline(Duration.ofMillis(20))
            .closeGrace(Duration.ofSeconds(30))
            .listener(new Unruly())
            .build();
    ServeResult first = servedDespiteTheDeadline(s, round + "/plain");
    handedOut.add(first);
    SealedReceipt notRecorded =
        Jcr1.seal(
            first.receipt().toBuilder().chain(1_000, Optional.of(first.envelope().id())).build(),
            f.stewardKey);
    long remainingBig;
    long remainingSmall;
    try (ExecutorService pool = Executors.newCachedThreadPool()) {
      CyclicBarrier start = new CyclicBarrier(SERVERS + 4);
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < SERVERS; t++) {
        int thread = t;
        all.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; ; i++) {
                    ServeRequest req =
                        GrantFixture.request(round + "/" + thread + "/" + i, 4, CEILING_UJ)
                            .withModel(i % 2 == 0 ? "ref" : "stuck");
                    try {
                      ServeResult r =
                          switch (thread % 3) {
                            case 0 -> s.serve(req, GrantFixture.payload(req));
                            case 1 -> s.serve(req, GrantFixture.payload(req), f.present(big, req));
                            default ->
                                s.serve(req, GrantFixture.payload(req), f.present(small, req));
                          };
                      handedOut.add(r);
                      enough.countDown();
                      if (enough.getCount() == 0) {
                        afterSuspension.countDown();
                      }
                    } catch (ServeException e) {
                      if (e.reason() == ServeException.Reason.NOT_RECORDED) {
                        return null; // closed
                      }
                      if (e.reason() == ServeException.Reason.ENGINE_FAILED) {
                        engineFailed.incrementAndGet();
                      }
                      // grant refusals (budget, revoked, suspended) and engine failures go on
                    } catch (RuntimeException e) {
                      unexpected.add(e);
                      return null;
                    }
                  }
                }));
      }
      all.add(
          pool.submit(
              () -> {
                start.await();
                while (!closing.get()) {
                  try {
                    s.checkpoint();
                  } catch (ServeException closed) {
                    // the close won the race
                  }
                  for (ServeResult r : List.copyOf(handedOut)) {
                    WitnessVerdict v = s.witness(r.receipt(), r.envelope());
                    assertThat(v).isEqualTo(WitnessVerdict.HELD);
                  }
                }
                return null;
              }));
      all.add(
          pool.submit(
              () -> {
                start.await();
                while (!closing.get()) {
                  try {
                    s.snapshot();
                  } catch (org.meshjava.journal.SnapshotException closed) {
                    // once closed, snapshots are refused
                  }
                }
                return null;
              }));
      Future<?> revoking =
          pool.submit(
              () -> {
                start.await();
                enough.await();
                s.revoke(Revocation.sign(f.org, small, GrantFixture.NOW));
                assertThat(s.witness(notRecorded.receipt(), notRecorded.envelope()))
                    .isEqualTo(WitnessVerdict.NOT_HELD);
                return null;
              });
      all.add(revoking);
      start.await();
      revoking.get(60, TimeUnit.SECONDS);
      // Ungranted serves go on after the suspension; the close meets them.
      afterSuspension.await(60, TimeUnit.SECONDS);
      closing.set(true);
      s.close();
      for (Future<?> each : all) {
        each.get(60, TimeUnit.SECONDS);
      }
      remainingBig = s.spend().remainingUj(big);
      remainingSmall = s.spend().remainingUj(small);
    }
    stuck.release.countDown();
    EngineDeadlineTest.joinEngineThreads();
    assertThat(unexpected).as("round %d", round).isEmpty();
    assertThat(engineFailed).as("round %d: the stuck backend was cut", round).hasPositiveValue();
    assertThat(remainingSmall).as("round %d: within the small budget", round).isNotNegative();
    assertThat(remainingBig).isNotNegative();

    List<JournalRecord> records = JournalFile.read(journal).records();
    Map<Long, JournalEntry.Debited> debits = new HashMap<>();
    Set<Long> decided = new HashSet<>();
    Map<Long, JournalEntry.Sealed> sealed = new HashMap<>();
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Authorised a -> decided.add(r.seq());
        case JournalEntry.Debited d ->
            assertThat(debits.put(d.authorised(), d))
                .as("round %d: decision %d debited once", round, d.authorised())
                .isNull();
        case JournalEntry.Sealed x ->
            assertThat(sealed.put(x.sequence(), x))
                .as("round %d: receipt %d sealed once", round, x.sequence())
                .isNull();
        default -> {}
      }
    }
    assertThat(debits.keySet()).as("round %d: each decision debited", round).isEqualTo(decided);
    AtomicLong sealedGrantedUj = new AtomicLong();
    for (ServeResult r : handedOut) {
      JournalEntry.Sealed x = sealed.get(r.receipt().sequence());
      assertThat(x).as("round %d: receipt handed out is journalled", round).isNotNull();
      assertThat(x.envelopeId()).isEqualTo(r.envelope().id());
      if (x.authorised().isPresent()) {
        JournalEntry.Debited d = debits.get(x.authorised().getAsLong());
        assertThat(d.energy())
            .as("round %d: debit is the sealed energy", round)
            .isEqualTo(r.receipt().energy());
        sealedGrantedUj.addAndGet(d.debitedUj());
      }
    }
    assertThat(sealed)
        .as("round %d: nothing sealed but what was handed out", round)
        .hasSameSizeAs(handedOut);
    long debitedUj = debits.values().stream().mapToLong(JournalEntry.Debited::debitedUj).sum();
    assertThat(debitedUj)
        .as("round %d: the spend is the debits", round)
        .isEqualTo(1_000_000_000 - remainingBig + SMALL_BUDGET_UJ - remainingSmall);
    assertThat(sealedGrantedUj.get()).isLessThanOrEqualTo(debitedUj);

    try (Steward again = f.steward(FileJournal.open(journal)).snapshots(store).build()) {
      assertThat(again.spend().remainingUj(big)).isEqualTo(remainingBig);
      assertThat(again.spend().remainingUj(small)).isEqualTo(remainingSmall);
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.grantsSuspended()).isPresent();
    }
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      assertThat(t.getName())
          .as("round %d: no engine thread left", round)
          .doesNotStartWith("mesh-engine-");
    }
  }

  /** Serves {@code prompt} ungranted, again while a loaded machine holds it past the deadline. */
  private static ServeResult servedDespiteTheDeadline(Steward s, String prompt) throws Exception {
    for (int attempt = 0; ; attempt++) {
      ServeRequest r = GrantFixture.request(prompt + "/" + attempt, 4, CEILING_UJ);
      try {
        return s.serve(r, GrantFixture.payload(r));
      } catch (ServeException e) {
        assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
      }
    }
  }

  /**
   * Serves as the reference engine, but every third call waits until interrupted (the deadline's
   * interrupt) and then fails; {@link #release} lets any call still waiting go.
   */
  static final class Interrupted extends ForwardingEngine {
    final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger calls = new AtomicInteger();

    Interrupted() {
      super(
          ReferenceEngine.builder()
              .name("stuck")
              .costProfile(CostProfile.perToken(100))
              .workPerToken(1)
              .build());
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      block();
      return delegate().serve(request, prompt);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
        throws EngineException {
      block();
      return delegate().serve(request, prompt, sink);
    }

    private void block() throws EngineException {
      if (calls.incrementAndGet() % 3 != 0) {
        return;
      }
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EngineException("interrupted");
      }
    }
  }

  /** A listener whose every few calls throw, and whose others stall a moment. */
  static final class Unruly implements StewardListener {
    private final AtomicInteger calls = new AtomicInteger();

    private void misbehave() {
      int n = calls.incrementAndGet();
      if (n % 5 == 0) {
        throw new IllegalStateException("listener " + n + " fails");
      }
      if (n % 7 == 0) {
        Thread.yield();
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public ServeObserver serveStarted(ServeStarted serve) {
      misbehave();
      return new ServeObserver() {
        @Override
        public void phase(org.meshjava.steward.observe.ServePhase phase) {
          misbehave();
        }

        @Override
        public void served(ServeResult result) {
          misbehave();
        }
      };
    }

    @Override
    public void debited(DebitResult debit) {
      misbehave();
    }

    @Override
    public void journalWritten(org.meshjava.steward.observe.JournalWrite write) {
      misbehave();
    }
  }
}
