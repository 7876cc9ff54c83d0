package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
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
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.JournalFile;

/**
 * Serves whose thread is interrupted, as an embedding application does it: {@code
 * Future.cancel(true)}, an executor's {@code shutdownNow}, a container's request timeout. The
 * steward's journal writes are not cut short by it (a {@code FileChannel} closes itself, and drops
 * the journal's lock, when a thread using it is interrupted), so every record ends either durable
 * or refused, the steward serves on, and the thread keeps its interrupt.
 */
@Timeout(60)
class StewardInterruptTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    threads.shutdownNow();
    Thread.interrupted();
  }

  Path journal() {
    return dir.resolve("steward.journal");
  }

  @Test
  void aGrantedServeOnAnInterruptedThread_isSealed_keepsTheInterrupt_andTheStewardServesOn()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FileJournal j = FileJournal.open(journal());
    try (Steward s = f.steward(j).build()) {
      ServeRequest first = GrantFixture.request("interrupted before it began", 4, 70_000);
      Thread.currentThread().interrupt();
      ServeResult r = s.serve(first, GrantFixture.payload(first), f.present(chain, first));
      assertThat(Thread.interrupted()).as("the interrupt is the caller's to see").isTrue();
      assertThat(r.receipt().sequence()).isZero();
      assertThat(j.locked()).isTrue();

      ServeRequest second = GrantFixture.request("served after it", 4, 70_000);
      assertThat(
              s.serve(second, GrantFixture.payload(second), f.present(chain, second))
                  .receipt()
                  .sequence())
          .isEqualTo(1);
    }
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.head().nextSequence()).isEqualTo(2);
    }
  }

  @Test
  void aServeCancelledThroughItsFuture_whileItsEngineRuns_isSettledAndSealed_andServesGoOn()
      throws Exception {
    cancelledWhileItsEngineRuns(threads);
  }

  @Test
  void aServeOnAVirtualThread_cancelledWhileItsEngineRuns_isSettledAndSealed_andServesGoOn()
      throws Exception {
    try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
      cancelledWhileItsEngineRuns(virtual);
    }
  }

  private void cancelledWhileItsEngineRuns(ExecutorService pool) throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("cancelled while it ran", 4, 70_000);
    try (Steward s = f.bare(FileJournal.open(journal())).backend(ignoring()).build()) {
      OnThePool serve = new OnThePool(pool, s, chain, req);
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      serve.cancel();
      serve.end();
      assertThat(serve.error.get()).isNull();
      assertThat(serve.interruptedAfter).isTrue();

      release.countDown(); // the engine no longer holds its serves
      ServeRequest next = GrantFixture.request("served after the cancel", 4, 70_000);
      assertThat(s.serve(next, GrantFixture.payload(next)).receipt().sequence()).isEqualTo(1);
    }
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.head().nextSequence()).isEqualTo(2);
    }
  }

  @Test
  void aServeWhoseEngineStopsOnTheInterrupt_isRefusedTyped_settled_andServesGoOn()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("its engine gave up", 4, 70_000);
    try (Steward s = f.bare(FileJournal.open(journal())).backend(honouring()).build()) {
      OnThePool serve = new OnThePool(threads, s, chain, req);
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      serve.cancel();
      serve.end();
      assertThat(serve.error.get())
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      assertThat(serve.interruptedAfter).isTrue();

      ServeRequest next = GrantFixture.request("served after the refusal", 4, 70_000);
      assertThat(s.serve(next, GrantFixture.payload(next)).receipt().sequence()).isZero();
    }
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).as("the refused serve's debit was journalled").isEmpty();
      assertThat(again.head().nextSequence()).isEqualTo(1);
    }
  }

  @Test
  void aServeInterruptedWhileItsAuthorisationWaitsForAnotherWrite_isServed_andNothingIsLeftHeld()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("interrupted in the group commit", 4, 70_000);
    AwaitHeld journal = new AwaitHeld(FileJournal.open(journal()));
    long remaining;
    try (Steward s = f.steward(journal).build()) {
      OnThePool serve = new OnThePool(threads, s, chain, req);
      assertThat(journal.waiting.await(10, TimeUnit.SECONDS)).isTrue();
      serve.cancel();
      journal.go.countDown();
      serve.end();
      // The authorisation was queued when the wait was cut: it is written whatever the serve
      // does, so the serve waits to know it, and goes on; giving up would release a hold that a
      // restart finds journalled and holds at its ceiling.
      assertThat(serve.error.get()).isNull();
      assertThat(serve.interruptedAfter).isTrue();
      remaining = s.spend().remainingUj(chain);
      assertThat(remaining).isLessThan(1_000_000);
    }
    try (Steward again = f.steward(FileJournal.open(journal())).build()) {
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.head().nextSequence()).isEqualTo(1);
    }
  }

  /**
   * A journal whose first {@code Authorised} record's await waits, interruptibly, for {@link #go}
   * before the real one, as a follower waits for another serve's write: interrupted, it throws
   * {@code IO} with the interrupt set and leaves the record queued, as the group commit does.
   */
  static final class AwaitHeld extends ForwardingJournal {
    final CountDownLatch waiting = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    private final AtomicBoolean first = new AtomicBoolean(true);

    AwaitHeld(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending p = delegate().enqueue(entry);
      if (!(entry instanceof JournalEntry.Authorised) || !first.getAndSet(false)) {
        return p;
      }
      return Pendings.awaitedBy(
          p,
          () -> {
            waiting.countDown();
            try {
              go.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new JournalException(JournalException.Reason.IO, "interrupted", e);
            }
            p.await();
          });
    }
  }

  @Test
  void close_onAnInterruptedThread_journalsItsLastCheckpoint_andKeepsTheInterrupt()
      throws Exception {
    Steward s = f.steward(FileJournal.open(journal())).build();
    ServeRequest req = GrantFixture.request("before the close", 4, 70_000);
    s.serve(req, GrantFixture.payload(req));
    Thread.currentThread().interrupt();
    s.close();
    assertThat(Thread.interrupted()).isTrue();
    assertThat(JournalFile.read(journal()).records().getLast().entry())
        .isInstanceOf(JournalEntry.Checkpoint.class);
    assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
  }

  /**
   * A granted serve submitted to {@code pool}, as an application submits one: what it threw, and
   * whether its thread was still interrupted when {@code serve} returned or threw.
   */
  final class OnThePool {
    final AtomicReference<Throwable> error = new AtomicReference<>();
    final AtomicBoolean interruptedAfter = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Future<?> future;

    OnThePool(ExecutorService pool, Steward s, GrantChain chain, ServeRequest req) {
      future =
          pool.submit(
              () -> {
                try {
                  s.serve(req, GrantFixture.payload(req), f.present(chain, req));
                } catch (Throwable t) {
                  error.set(t);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
                done.countDown();
              });
    }

    /** Cancels it as an application does: {@code Future.cancel(true)} interrupts its thread. */
    void cancel() {
      future.cancel(true);
    }

    /** Waits for the serve to return or throw. */
    void end() throws InterruptedException {
      assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** The reference engine, held in its serve until interrupted or released, then serving. */
  StewardGrantTest.Delegating ignoring() {
    return new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        running.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // and serves on, as much engine code does
        }
        return super.serve(r, p);
      }
    };
  }

  /** The reference engine, held in its first serve until interrupted, when it gives up. */
  StewardGrantTest.Delegating honouring() {
    AtomicBoolean first = new AtomicBoolean(true);
    return new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        if (first.getAndSet(false)) {
          running.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted", e);
          }
        }
        return super.serve(r, p);
      }
    };
  }
}
