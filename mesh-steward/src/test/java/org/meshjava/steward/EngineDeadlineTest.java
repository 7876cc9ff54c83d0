package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;

/**
 * {@code Steward.Builder.engineDeadline}: a serve whose engine has not returned by the deadline is
 * refused {@code ENGINE_FAILED} and debited its whole ceiling, the engine's late result is never
 * sealed nor streamed, and the engine keeps its backend slot until it does return. The engine here
 * waits on a latch the test opens; each waiter is woken by what it waits for, never by time.
 */
@Timeout(60)
class EngineDeadlineTest {
  static final Duration DEADLINE = Duration.ofMillis(50);

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);
  final CountDownLatch engineInterrupted = new CountDownLatch(1);

  /** What the caller's sink answered the engine for token 1 (in time) and token 2 (late). */
  final AtomicReference<Boolean> firstAccepted = new AtomicReference<>();

  final AtomicReference<Boolean> lateAccepted = new AtomicReference<>();

  /** Whether the first serve throws, rather than returns, once released. */
  volatile boolean throwLate;

  @AfterEach
  void stop() {
    release.countDown();
    threads.shutdownNow();
  }

  /**
   * Serves under the name "slow", one at a time with no queue; the first serve streams token 1,
   * then waits for {@link #release} through interrupts (noting them), then streams token 2.
   */
  StewardGrantTest.OneAtATime slow() {
    return new StewardGrantTest.OneAtATime(ReferenceEngine.builder().name("slow").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        return serve(r, p, TokenSink.DISCARD);
      }

      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p, TokenSink sink)
          throws EngineException {
        if (running.getCount() > 0) {
          firstAccepted.set(sink.accept(1));
          running.countDown();
          awaitRelease();
          if (throwLate) {
            throw new EngineException("failed after its deadline");
          }
          lateAccepted.set(sink.accept(2));
          return new EngineResult(TokenSequence.of(1, 2), ServeOutcome.greedy(p.size(), 2));
        }
        return super.serve(r, p);
      }
    };
  }

  void awaitRelease() {
    while (true) {
      try {
        release.await();
        return;
      } catch (InterruptedException e) {
        engineInterrupted.countDown();
      }
    }
  }

  /** Waits for the engine's own thread to end, once the engine has returned. */
  static void joinEngineThreads() throws InterruptedException {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("mesh-engine-")) {
        t.join();
      }
    }
  }

  @Test
  void anEnginePastItsDeadline_isRefused_debitedItsCeiling_keepsItsSlot_andIsNeverSealed()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    Path journal = dir.resolve("steward.journal");
    long remaining;
    long head;
    try (Steward s =
        f.steward(FileJournal.open(journal))
            .backend(slow())
            .engineDeadline(DEADLINE)
            .closeGrace(Duration.ZERO)
            .build()) {
      ServeRequest late = GrantFixture.request("late", 4, 70_000).withModel("slow");
      Future<ServeResult> serving =
          threads.submit(() -> s.serve(late, GrantFixture.payload(late), f.present(chain, late)));
      assertThatThrownBy(() -> serving.get(20, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
                assertThat(e.getMessage()).contains("did not return within 50 ms");
              });
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000 - 70_000);

      // Still running on its own thread: its slot is still taken.
      ServeRequest busy = GrantFixture.request("busy", 4, 70_000).withModel("slow");
      assertThatThrownBy(() -> s.serve(busy, GrantFixture.payload(busy)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY));

      release.countDown();
      joinEngineThreads();
      assertThat(engineInterrupted.getCount()).isZero();

      // Its late result was dropped: the next serve is the chain's first receipt.
      ServeRequest next = GrantFixture.request("next", 4, 70_000).withModel("slow");
      ServeResult r = s.serve(next, GrantFixture.payload(next), f.present(chain, next));
      assertThat(r.receipt().sequence()).isZero();
      remaining = s.spend().remainingUj(chain);
      head = s.head().nextSequence();
    }
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.head().nextSequence()).isEqualTo(head).isEqualTo(1);
    }
  }

  @Test
  void aStreamedServe_pastItsDeadline_handsTheSinkNothingMore() throws Exception {
    PromptText prompt = PromptText.of("user 5\nhello\n");
    ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    List<Integer> handed = new CopyOnWriteArrayList<>();
    try (Steward s =
        f.steward(new org.meshjava.journal.InMemoryJournal())
            .backend(slow())
            .engineDeadline(DEADLINE)
            .closeGrace(Duration.ZERO)
            .build()) {
      Future<ServeResult> serving =
          threads.submit(
              () ->
                  s.serve(
                      request.withModel("slow"),
                      prompt,
                      route ->
                          token -> {
                            handed.add(token);
                            return true;
                          }));
      assertThatThrownBy(() -> serving.get(20, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      release.countDown();
      joinEngineThreads();
    }
    assertThat(handed).containsExactly(1);
    // The engine hears that the sink took the token in time, and that the serve has stopped after.
    assertThat(firstAccepted.get()).isTrue();
    assertThat(lateAccepted.get()).isFalse();
  }

  @Test
  void anEngineThatThrowsAfterItsDeadline_stillGivesItsSlotBack() throws Exception {
    throwLate = true;
    try (Steward s =
        f.steward(new org.meshjava.journal.InMemoryJournal())
            .backend(slow())
            .engineDeadline(DEADLINE)
            .closeGrace(Duration.ZERO)
            .build()) {
      ServeRequest late = GrantFixture.request("late", 4, 70_000).withModel("slow");
      assertThatThrownBy(() -> s.serve(late, GrantFixture.payload(late)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.getMessage()).contains("did not return within 50 ms"));
      release.countDown();
      joinEngineThreads();

      // Failing late is returning late: the slot it held is free for the next serve.
      ServeRequest next = GrantFixture.request("next", 4, 70_000).withModel("slow");
      assertThat(s.serve(next, GrantFixture.payload(next)).tokens().size()).isPositive();
    }
  }

  @Test
  void aCallerGoneUnderADeadline_isToldToTheEngine_forATokenAndARun() throws Exception {
    assertThat(heardUnderADeadline(false)).containsExactly(false, false);
  }

  @Test
  void aCallerStillThereUnderADeadline_isToldSo_forATokenAndARun() throws Exception {
    assertThat(heardUnderADeadline(true)).containsExactly(true, true);
  }

  /** What an engine under a deadline hears from a caller's sink that answers {@code answer}. */
  List<Boolean> heardUnderADeadline(boolean answer) throws Exception {
    PromptText prompt = PromptText.of("user 5\nhello\n");
    ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    List<Boolean> heard = new CopyOnWriteArrayList<>();
    ReferenceEngine inner = ReferenceEngine.builder().name("told").build();
    ServingEngine told =
        new ForwardingEngine(inner) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p, TokenSink sink)
              throws EngineException {
            EngineResult result = inner.serve(r, p);
            int[] tokens = result.tokens().toArray();
            heard.add(sink.accept(tokens[0]));
            heard.add(
                sink.acceptRun(
                    TokenSequence.of(java.util.Arrays.copyOfRange(tokens, 1, tokens.length))));
            return result;
          }
        };
    try (Steward s =
        f.steward(new org.meshjava.journal.InMemoryJournal())
            .backend(told)
            .engineDeadline(Duration.ofHours(1))
            .build()) {
      s.serve(request.withModel("told"), prompt, route -> token -> answer);
    }
    return heard;
  }

  @Test
  void anInterruptWhileWaiting_reachesTheEngine_andIsSetAgainOnTheServingThread() throws Exception {
    ServeRequest request = GrantFixture.request("interrupted", 4, 70_000).withModel("slow");
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    try (Steward s =
        f.steward(new org.meshjava.journal.InMemoryJournal())
            .backend(slow())
            .engineDeadline(Duration.ofHours(1))
            .build()) {
      Thread serving =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      s.serve(request, GrantFixture.payload(request));
                    } catch (ServeException | RuntimeException e) {
                      thrown.set(e);
                    }
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                  });
      assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
      serving.interrupt();
      // The engine notes the interrupt and waits on; the serve waits for it (an hour's deadline).
      assertThat(engineInterrupted.await(20, TimeUnit.SECONDS)).isTrue();
      release.countDown();
      serving.join();
    }
    assertThat(thrown.get()).isNull();
    assertThat(stillInterrupted).isTrue();
  }
}
