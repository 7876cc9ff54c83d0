package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.meshjava.journal.FileJournal;

/**
 * {@link Steward#close()} called by two threads at once (a shutdown hook and the application's own
 * stop, say): whichever call returns, the steward has closed, its journal released.
 */
@Timeout(60)
class ConcurrentCloseTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    threads.shutdownNow();
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

  /** The reference engine, held inside its serve until {@link #release}. */
  StewardGrantTest.Delegating held() {
    return new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
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
}
