package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.CounterMeter;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.MeterDiscovery;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.Unresolved;

/**
 * {@link Steward#close()} with serves in flight: it lets them finish (sealed and debited) for up to
 * its grace, refuses serves that begin meanwhile, and cuts only what outlives the grace.
 */
@Timeout(60)
class StewardCloseTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);
  final AtomicInteger engineRuns = new AtomicInteger();

  @AfterEach
  void stop() {
    release.countDown();
    threads.shutdownNow();
  }

  Path journal() {
    return dir.resolve("steward.journal");
  }

  /** The reference engine, held inside its first serve until {@link #release}. */
  StewardGrantTest.Delegating held() {
    return new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        engineRuns.incrementAndGet();
        running.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return super.serve(r, p);
      }
    };
  }

  /**
   * A journal in memory that, asked whether it takes appends once {@link #armed}, says it is being
   * asked ({@link #asking}) and holds the question until {@link #answer} (or until it is closed),
   * then answers {@code failure} where one is given, else as it is.
   */
  static final class HeldQuestion extends ForwardingJournal {
    final java.util.concurrent.atomic.AtomicBoolean armed =
        new java.util.concurrent.atomic.AtomicBoolean();
    final CountDownLatch asking = new CountDownLatch(1);
    final CountDownLatch answer = new CountDownLatch(1);
    private final java.util.Optional<String> failure;

    HeldQuestion(java.util.Optional<String> failure) {
      super(new InMemoryJournal());
      this.failure = failure;
    }

    @Override
    public java.util.Optional<String> refusesAppends() {
      if (armed.compareAndSet(true, false)) {
        asking.countDown();
        try {
          answer.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (failure.isPresent()) {
          return failure;
        }
      }
      return super.refusesAppends();
    }

    @Override
    public void close() {
      super.close();
      answer.countDown();
    }
  }

  @Test
  void close_waitsForAGrantedServeInFlight_whichIsSealedAndDebited_andRefusesNewServes()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("closed under it", 4, 70_000);
    Steward s = f.bare(FileJournal.open(journal())).backend(held()).build();
    Future<ServeResult> serve =
        threads.submit(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    Future<?> closing = threads.submit(s::close);
    Thread.sleep(300);
    assertThat(closing).as("close waits for the serve in flight").isNotDone();

    // A serve that begins while the close waits is refused before any engine runs.
    ServeRequest late = GrantFixture.request("after the close began", 4, 70_000);
    assertThatThrownBy(() -> s.serve(late, GrantFixture.payload(late)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(engineRuns).hasValue(1);

    release.countDown();
    ServeResult result = serve.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(result.receipt().sequence()).isZero();

    // Sealed, and its debit journalled: nothing is left held at the ceiling.
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.head().nextSequence()).isEqualTo(1);
      assertThat(again.spend().remainingUj(chain)).isLessThan(1_000_000);
    }
  }

  /**
   * The closing thread's own serves are not waited for (it cannot finish them before its close
   * returns), but only those in flight on it: one it finished before closing must not count.
   */
  @Test
  void close_fromAThreadThatServedEarlier_stillWaitsForAnotherThreadsServe() throws Exception {
    Steward s =
        f.bare(FileJournal.open(journal()))
            .backend(held())
            .backend(ReferenceEngine.builder().name("quick").build())
            .build();
    ServeRequest own = GrantFixture.request("the closer's own, done", 4, 70_000).withModel("quick");
    ServeRequest other = GrantFixture.request("another thread's", 4, 70_000).withModel("ref");
    Future<?> closing =
        threads.submit(
            () -> {
              s.serve(own, GrantFixture.payload(own));
              assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
              s.close();
              return null;
            });
    Future<ServeResult> serve = threads.submit(() -> s.serve(other, GrantFixture.payload(other)));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(300);
    assertThat(closing).as("close waits for the other thread's serve").isNotDone();

    release.countDown();
    assertThat(serve.get(30, TimeUnit.SECONDS).receipt().backend()).isEqualTo("ref");
    closing.get(30, TimeUnit.SECONDS);
  }

  @Test
  void close_whoseGraceRunsOut_cutsTheServe_whichComesBackUnresolvedAtItsCeiling()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("cut by the close", 4, 70_000);
    Steward s =
        f.bare(FileJournal.open(journal()))
            .backend(held())
            .closeGrace(Duration.ofMillis(200))
            .build();
    Future<ServeResult> serve =
        threads.submit(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    s.close(); // returns once the grace has run out, the engine still running
    assertThat(serve).isNotDone();
    release.countDown();

    assertThatThrownBy(() -> serve.get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    // Its authorisation was journalled, its debit never was: held at the whole ceiling.
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved())
          .singleElement()
          .extracting(Unresolved::ceilingUj)
          .isEqualTo(70_000L);
    }
  }

  /**
   * Regression: a grace too long to count in nanoseconds (about 292 years; {@code
   * mesh.close-grace=999999999999d} in the Spring starter) made close throw {@code
   * ArithmeticException: long overflow} after it had marked the steward closed and before it closed
   * the journal, whose lock then stayed held for the rest of the process.
   */
  @Test
  void close_withAGraceTooLongToCount_stillClosesTheJournal() throws Exception {
    Steward s =
        f.steward(FileJournal.open(journal()))
            .closeGrace(Duration.ofDays(999_999_999_999L))
            .build();

    s.close();

    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.readiness().ready()).isTrue();
    }
  }

  @Test
  void close_calledFromInsideAServe_doesNotWaitForThatServe() throws Exception {
    AtomicReference<Steward> self = new AtomicReference<>();
    AtomicReference<Duration> closeTook = new AtomicReference<>();
    StewardGrantTest.Delegating closing =
        new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            long t0 = System.nanoTime();
            self.get().close();
            closeTook.set(Duration.ofNanos(System.nanoTime() - t0));
            return super.serve(r, p);
          }
        };
    Steward s =
        f.bare(FileJournal.open(journal()))
            .backend(closing)
            .closeGrace(Duration.ofSeconds(40))
            .build();
    self.set(s);
    ServeRequest req = GrantFixture.request("closes its own steward", 4, 70_000);
    assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(closeTook.get()).isLessThan(Duration.ofSeconds(20));
  }

  /**
   * Regression: a journal whose close threw a checked exception (sneakily, as code in another JVM
   * language may) skipped every later part of the steward's close: the journal's claim was never
   * let go, so no later steward in this process could open it. Every part runs; the checked
   * exception is thrown after, carried in an unchecked one.
   */
  @Test
  void close_whoseJournalCloseThrowsACheckedException_stillLetsTheJournalGo() throws Exception {
    java.io.IOException closeFailed = new java.io.IOException("the journal's close failed");
    Journal failsToClose =
        new ForwardingJournal(FileJournal.open(journal())) {
          @Override
          public void close() {
            super.close();
            StewardCloseTest.<RuntimeException>sneakyThrow(closeFailed);
          }
        };
    Steward s = f.steward(failsToClose).build();

    assertThatThrownBy(s::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the journal's close failed")
        .cause()
        .isSameAs(closeFailed);
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).isEmpty();
    }
  }

  @SuppressWarnings("unchecked") // the point: a checked exception thrown where none is declared
  private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
    throw (T) t;
  }

  /** A steward discovering {@code powercap}'s counter, over a journal whose close throws. */
  private static Steward withJournalFailingToClose(
      FakePowercap powercap, RuntimeException closeFailed) {
    Journal failsToClose =
        new ForwardingJournal(new InMemoryJournal()) {
          @Override
          public void close() {
            super.close();
            throw closeFailed;
          }
        };
    return Steward.ephemeral()
        .discovery(powercap.options())
        .journal(failsToClose)
        .backend(ReferenceEngine.builder().name("ref").build())
        .build();
  }

  /**
   * Regression: a journal whose close threw skipped closing the meter the steward discovered, so
   * its re-probe thread outlived the steward. The meter here is what discovery finds on a fake
   * powercap tree ({@link DiscoveryOptions#withRaplRoot}) whose counter a thread keeps advancing,
   * so it is proved live and owned by the steward, as a machine's RAPL counter would be.
   */
  @Test
  void close_whoseJournalCloseThrows_stillClosesTheDiscoveredMeter() throws Exception {
    FakePowercap powercap = new FakePowercap(dir.resolve("powercap"));
    // Discovery probes the counter once, at build: it must be advancing from the first sample.
    powercap.power();
    RuntimeException closeFailed = new IllegalStateException("the journal's close failed");
    // A probe on a loaded machine can find the fake counter's writer held off the CPU for whole
    // samples (LUMPY): as in StewardSharedMeterTest, a steward whose probe failed is closed and
    // another built, a few times at most. This test is about closing, not liveness.
    Steward s = withJournalFailingToClose(powercap, closeFailed);
    for (int attempt = 2;
        attempt <= 5 && !s.meterDiscovery().orElseThrow().hardwareGraded();
        attempt++) {
      assertThatThrownBy(s::close).isSameAs(closeFailed);
      s = withJournalFailingToClose(powercap, closeFailed);
    }
    MeterDiscovery found = s.meterDiscovery().orElseThrow();
    assertThat(found.hardwareGraded())
        .as("the fake counter is proved live: %s", found.counters())
        .isTrue();
    CounterMeter meter = (CounterMeter) found.meter();

    assertThatThrownBy(s::close).isSameAs(closeFailed);

    // The counter stops. A meter still open would find it frozen when probed; a closed one probes
    // no more (CounterMeter.close), so the counter keeps the verdict it had.
    powercap.unplug();
    meter.probeNow();
    assertThat(meter.liveDomains()).as("the meter was closed, so it probed nothing").isNotEmpty();
  }

  /**
   * Regression: a serve admitted just before a close, that asked whether its journal takes appends
   * only once the close had closed the journal, was refused as if the journal had failed for good:
   * a {@code FAILED} journal cause, which the HTTP binding answers "do not resend", and "nothing is
   * served until the steward is restarted" for a steward an application had simply closed. The
   * journal here holds that serve inside the question until the close has closed it, which a loaded
   * machine does by scheduling alone (19 of 64 serves of 32 threads on two cores, grace 200 ms).
   */
  @Test
  void aServeAdmittedBeforeTheCloseAndCheckedAfterIt_isRefusedAsClosed_notAsAFailedJournal()
      throws Exception {
    HeldQuestion holdsTheQuestion = new HeldQuestion(java.util.Optional.empty());
    Steward s =
        Steward.ephemeral()
            .meter(new org.meshjava.energy.EstimatorMeter())
            .journal(holdsTheQuestion)
            .backend(held())
            .closeGrace(Duration.ofMillis(100))
            .build();
    holdsTheQuestion.armed.set(true);
    ServeRequest req = GrantFixture.request("admitted, then closed under", 4, 70_000);
    Future<ServeResult> serve = threads.submit(() -> s.serve(req, GrantFixture.payload(req)));
    assertThat(holdsTheQuestion.asking.await(10, TimeUnit.SECONDS)).isTrue();

    s.close(); // the grace runs out with the serve still asking, then the journal closes

    assertThatThrownBy(() -> serve.get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
              assertThat(e.getMessage())
                  .contains("the steward is closed")
                  .doesNotContain("restart");
              assertThat(e.getCause())
                  .as("no journal failure: the journal was closed with its steward")
                  .satisfiesAnyOf(
                      c -> assertThat(c).isNull(),
                      c ->
                          assertThat(c)
                              .isInstanceOfSatisfying(
                                  org.meshjava.journal.JournalException.class,
                                  j ->
                                      assertThat(j.reason())
                                          .isEqualTo(
                                              org.meshjava.journal.JournalException.Reason
                                                  .CLOSED)));
            });
    assertThat(engineRuns).as("refused before any engine ran").hasValue(0);
  }

  /**
   * Regression: a journal that failed for real (a write or sync refused) while the close waited for
   * serves in flight was reported to a serve admitted before the close as "the steward is closed",
   * with no journal failure as its cause, so an HTTP client was not told that a resend is futile
   * and the operator was not told what broke. Only a journal the close itself has closed is a
   * close.
   */
  @Test
  void aJournalFailingWhileTheCloseWaits_isRefusedAsAFailedJournal_notAsAClose() throws Exception {
    HeldQuestion failsUnderTheClose =
        new HeldQuestion(java.util.Optional.of("journal x failed: No space left on device"));
    Steward s =
        Steward.ephemeral()
            .meter(new org.meshjava.energy.EstimatorMeter())
            .journal(failsUnderTheClose)
            .backend(held())
            .build();
    failsUnderTheClose.armed.set(true);
    ServeRequest req = GrantFixture.request("admitted, then the disk filled", 4, 70_000);
    Future<ServeResult> serve = threads.submit(() -> s.serve(req, GrantFixture.payload(req)));
    assertThat(failsUnderTheClose.asking.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = new Thread(s::close, "closer");
    closer.start();
    // The close waits (for its grace, 30 s) for the serve admitted before it.
    while (closer.getState() != Thread.State.TIMED_WAITING) {
      assertThat(closer.isAlive()).as("the close waits for the serve in flight").isTrue();
      Thread.sleep(5);
    }
    failsUnderTheClose.answer.countDown();

    assertThatThrownBy(() -> serve.get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> {
              assertThat(e).isNotInstanceOf(StewardClosedException.class);
              assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
              assertThat(e.getMessage())
                  .contains("No space left on device")
                  .doesNotContain("the steward is closed");
              assertThat(e.getCause())
                  .isInstanceOfSatisfying(
                      org.meshjava.journal.JournalException.class,
                      j ->
                          assertThat(j.reason())
                              .isEqualTo(org.meshjava.journal.JournalException.Reason.FAILED));
            });
    closer.join(30_000);
    assertThat(engineRuns).as("refused before any engine ran").hasValue(0);
  }

  /**
   * A serve on a closed steward, granted or not, is refused before any work as a {@link
   * StewardClosedException}, saying that nothing of it was decided: its presentation is not spent,
   * so it can be sent again to a steward that is running.
   */
  @Test
  void aGrantedServeOnAClosedSteward_isRefusedAsClosed_withItsPresentationUnspent()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("after the close", 4, 70_000);
    Steward s = f.bare(FileJournal.open(journal())).backend(held()).build();
    s.close();
    assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
        .isInstanceOfSatisfying(
            StewardClosedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
              assertThat(e.getMessage())
                  .contains("the steward is closed")
                  .contains("nothing of this serve was decided")
                  .contains("not spent");
            });
    assertThat(engineRuns).hasValue(0);
  }

  /**
   * Regression: the second call returned at once while the first still waited for a serve in
   * flight, with the journal still locked, so a caller that went on to start a steward over the
   * same file was refused {@code LOCKED}.
   */
  @Test
  void aSecondCloseWhileTheFirstWaits_returnsOnlyOnceTheJournalIsReleased() throws Exception {
    FileJournal journal = FileJournal.open(dir.resolve("steward.journal"));
    Steward s = f.bare(journal).backend(held()).build();
    ServeRequest req = GrantFixture.request("in flight", 4, 70_000);
    Future<ServeResult> serve = threads.submit(() -> s.serve(req, GrantFixture.payload(req)));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    Thread first = Thread.ofPlatform().start(s::close);
    awaitWaiting(first);

    AtomicReference<Boolean> lockedAfterSecond = new AtomicReference<>();
    Thread second =
        Thread.ofPlatform()
            .start(
                () -> {
                  s.close();
                  lockedAfterSecond.set(journal.locked());
                });
    awaitWaiting(second);
    release.countDown();
    second.join(30_000);
    first.join(30_000);

    assertThat(lockedAfterSecond.get()).as("journal still locked when close() returned").isFalse();
    assertThat(serve.get(30, TimeUnit.SECONDS).receipt().sequence()).isZero();
  }

  /** Waits until {@code t} parks (or ends): a close waiting for something, or one that returned. */
  private static void awaitWaiting(Thread t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (t.isAlive()
        && t.getState() != Thread.State.WAITING
        && t.getState() != Thread.State.TIMED_WAITING
        && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }
}
