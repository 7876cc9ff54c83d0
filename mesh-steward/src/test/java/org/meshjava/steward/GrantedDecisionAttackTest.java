package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;

/**
 * Typed decisions (§3.6) served on a grant, against an engine that answers badly in every way it
 * can: nothing is sealed without its journalled decision, each refusal is typed and says what the
 * engine did, and the grant is debited once, at what was metered (the ceiling when the engine
 * overran), never twice and never left held.
 */
class GrantedDecisionAttackTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  private static ClaimsEngine decider(UnaryOperator<DecisionResult> answers) {
    return ClaimsEngine.over(DecisionServeTest.engine()).named("decider").decisions(answers);
  }

  private static ServeRequest decision(String prompt) {
    byte[] b = prompt.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.decision(
        ContentId.ofBytes(b),
        DecisionServeTest.PROMPT.size(),
        new ServeBounds(0, Fidelity.F1, CEILING),
        DecisionQuestion.shapeOf(DecisionServeTest.QUESTIONS, 8));
  }

  private ServeResult decide(Steward s, GrantChain chain, ServeRequest req) throws Exception {
    return s.serve(
        req, DecisionServeTest.PROMPT, DecisionServeTest.QUESTIONS, f.present(chain, req));
  }

  /** The refusal of {@code req}, which must be {@code reason}, nothing sealed or left held. */
  private ServeException refused(
      Steward s, GrantChain chain, ServeRequest req, ServeException.Reason reason) {
    Throwable t = catchThrowable(() -> decide(s, chain, req));
    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    assertThat(s.head().nextSequence()).isZero();
    assertThat(s.unresolved()).isEmpty();
    return (ServeException) t;
  }

  /**
   * Regression: a decision engine that returned null was refused over a NullPointerException the
   * steward's own code threw, in its words ("Cannot invoke ... toEngineResult() because r is
   * null"), where a generation engine returning nothing is told "it returned no result".
   */
  @Test
  void anEngineReturningNoDecision_isEngineFailed_inItsOwnWords_andSettled() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(decider(d -> null)).build()) {
      ServeException e = refused(s, chain, decision("null"), ServeException.Reason.ENGINE_FAILED);

      assertThat(e.getMessage())
          .isEqualTo("ENGINE_FAILED: backend decider failed: it returned no decision");
      assertThat(s.spend().remainingUj(chain)).isBetween(BUDGET - CEILING, BUDGET);
    }
  }

  /**
   * Answers that do not fit what was asked (too few, too many, one with the wrong number of
   * options, another shape reported) are refused {@code INCONSISTENT_OUTCOME} and debited what was
   * metered, once: a good decision after it on the same grant leaves the budget less exactly two
   * such figures.
   */
  @Test
  void answersThatDoNotFit_areInconsistent_debitedWhatWasMeteredOnce() throws Exception {
    List<UnaryOperator<DecisionResult>> bad =
        List.of(
            d -> new DecisionResult(d.outcome(), d.answers().subList(0, 2)),
            d -> {
              List<DecisionAnswer> more = new ArrayList<>(d.answers());
              more.add(d.answers().get(0));
              return new DecisionResult(d.outcome(), more);
            },
            d ->
                new DecisionResult(
                    d.outcome(),
                    List.of(d.answers().get(1), d.answers().get(0), d.answers().get(2))));
    for (UnaryOperator<DecisionResult> answers : bad) {
      GrantChain chain = f.chain(BUDGET);
      try (Steward s = f.bare(new DurableMemoryJournal()).backend(decider(answers)).build()) {
        ServeException e =
            refused(s, chain, decision("bad"), ServeException.Reason.INCONSISTENT_OUTCOME);
        assertThat(e.getMessage()).startsWith("INCONSISTENT_OUTCOME: backend decider ");
        long afterRefusal = s.spend().remainingUj(chain);

        try (Steward good = f.bare(new DurableMemoryJournal()).backend(decider(d -> d)).build()) {
          long spent = decide(good, chain, decision("good")).receipt().energy().uj();
          assertThat(spent).isPositive();
          assertThat(afterRefusal).isEqualTo(BUDGET - spent);
        }
      }
    }
  }

  /**
   * Whatever the engine's decide throws (its own exception, an unchecked one, an answer it built
   * with a NaN or negative probability, a stack overflow, an assertion) is {@code ENGINE_FAILED}
   * with its words, settled; the JVM failing passes as it is, settled too.
   */
  @Test
  void everyThrowOfDecide_isEngineFailed_andTheJvmFailingPasses_eachSettled() throws Exception {
    List<UnaryOperator<DecisionResult>> throwing =
        List.of(
            d -> new DecisionResult(d.outcome(), List.of(DecisionAnswer.of(Double.NaN))),
            d -> new DecisionResult(d.outcome(), List.of(DecisionAnswer.of(-0.5, 1.5))),
            d -> {
              throw new IllegalStateException("its own state");
            },
            d -> {
              throw new StackOverflowError();
            },
            d -> {
              throw new AssertionError("its own assertion");
            });
    List<String> says =
        List.of(
            "probability 0 must be finite and in [0, 1], got NaN",
            "probability 0 must be finite and in [0, 1], got -0.5",
            "its own state",
            "it threw java.lang.StackOverflowError, and it gave no reason",
            "its own assertion");
    for (int i = 0; i < throwing.size(); i++) {
      GrantChain chain = f.chain(BUDGET);
      try (Steward s =
          f.bare(new DurableMemoryJournal()).backend(decider(throwing.get(i))).build()) {
        ServeException e =
            refused(s, chain, decision("throws " + i), ServeException.Reason.ENGINE_FAILED);
        assertThat(e.getMessage())
            .startsWith("ENGINE_FAILED: backend decider failed: ")
            .contains(says.get(i));
        assertThat(s.spend().remainingUj(chain)).isBetween(BUDGET - CEILING, BUDGET);
      }
    }
    GrantChain chain = f.chain(BUDGET);
    OutOfMemoryError oom = new OutOfMemoryError("the heap");
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(
                decider(
                    d -> {
                      throw oom;
                    }))
            .build()) {
      ServeRequest req = decision("the JVM failing");
      assertThat(catchThrowable(() -> decide(s, chain, req))).isSameAs(oom);
      assertThat(s.head().nextSequence()).isZero();
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /** A decision past the engine deadline is refused and debited its ceiling, its answer dropped. */
  @Test
  void aDecisionPastItsDeadline_isRefused_debitedItsCeiling_andNeverSealed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ClaimsEngine slow =
        decider(
            d -> {
              HungEngine.awaitThroughInterrupts(release);
              return d;
            });
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(slow)
            .engineDeadline(Duration.ofMillis(50))
            .build()) {
      try {
        ServeException e = refused(s, chain, decision("slow"), ServeException.Reason.ENGINE_FAILED);
        assertThat(e.getMessage())
            .startsWith("ENGINE_FAILED: backend decider failed: it did not return within 50 ms")
            .contains("its result, if it comes, is dropped");
        assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
      } finally {
        release.countDown();
        EngineDeadlineTest.joinEngineThreads();
      }
      assertThat(s.head().nextSequence()).isZero();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
    }
  }

  /**
   * Decisions and generations served at once on one grant: each sealed once, at its own sequence,
   * each decision's {@code uj_per_decision} its energy over its questions, and the grant debited
   * exactly what the receipts say, in sum.
   */
  @Test
  void decisionsAndGenerationsAtOnceOnOneGrant_areEachDebitedOnce() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    int each = 4;
    ExecutorService threads = Executors.newFixedThreadPool(2 * each);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(decider(d -> d))
            .backend(GrantFixture.ref())
            .build()) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<ServeResult>> served = new ArrayList<>();
      for (int i = 0; i < each; i++) {
        ServeRequest d = decision("at once " + i);
        ServeRequest g = GrantFixture.request("at once " + i, 3, CEILING);
        served.add(
            threads.submit(
                () -> {
                  start.await();
                  return decide(s, chain, d);
                }));
        served.add(
            threads.submit(
                () -> {
                  start.await();
                  return s.serve(g, GrantFixture.payload(g), f.present(chain, g));
                }));
      }
      start.countDown();
      long spent = 0;
      Set<Long> sequences = new HashSet<>();
      int decisions = 0;
      for (Future<ServeResult> r : served) {
        ServeResult result = r.get();
        spent += result.receipt().energy().uj();
        sequences.add(result.receipt().sequence());
        if (result.receipt().decision().isPresent()) {
          decisions++;
          assertThat(result.receipt().ujPerDecision())
              .hasValue(result.receipt().energy().uj() / DecisionServeTest.QUESTIONS.size());
        } else {
          assertThat(result.receipt().ujPerDecision()).isEmpty();
        }
      }

      assertThat(sequences).hasSize(2 * each);
      assertThat(decisions).isEqualTo(each);
      assertThat(s.head().nextSequence()).isEqualTo(2 * each);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - spent);
    } finally {
      threads.shutdownNow();
    }
  }
}
