package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.jcp.GrantChain;

/**
 * A fault of a mapped read (an engine's weights cut short on disk) that the engine's JIT-compiled
 * code held back surfaces at the thread's next safepoint poll, after the engine returned (SPEC.md
 * §60.8, "When the fault is thrown"). The engine call's guarded region ends by taking it there
 * ({@code Steward.Builder.heldFaults}, {@code MappedReadFault.deliverPending} in production), on
 * the serving thread and on an engine deadline's thread alike, so the serve is refused {@code
 * ENGINE_FAILED} and settled at what was metered, never a raw {@link InternalError} past the guard
 * nor a deadline waited out. The stand-in throws what HotSpot throws for it in compiled code, once,
 * as a real held-back fault is thrown once.
 */
@Timeout(30)
class HeldEngineFaultTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** HotSpot's fault for a mapped read past the file's end, as compiled code has it thrown. */
  static InternalError compiledFault() {
    return new InternalError(
        "a fault occurred in a recent unsafe memory access operation in compiled Java code");
  }

  /**
   * Whether this thread holds a fault back: the engine's work sets it, as a compiled engine's read
   * of its cut weights leaves one queued for its own thread, to be thrown at the thread's next
   * poll.
   */
  private final ThreadLocal<Boolean> held = ThreadLocal.withInitial(() -> false);

  private final AtomicInteger thrown = new AtomicInteger();

  /** The stand-in for {@code deliverPending}: throws the fault this thread holds back, once. */
  private void heldFault() {
    if (held.get()) {
      held.set(false);
      thrown.incrementAndGet();
      throw compiledFault();
    }
  }

  /**
   * Regression: the region ended at the engine's return, so a fault held back past it was thrown at
   * the window's close, raw, out of the serve (or as "could not name its weights").
   */
  @Test
  void aFaultHeldBackPastTheEnginesReturn_isRefusedEngineFailed_andSettledAsMetered()
      throws Exception {
    assertRefusedAndSettled(Duration.ZERO);
    assertThat(thrown).hasValue(1);
  }

  /**
   * Regression: on an engine deadline's thread, the fault held back past the engine's return was
   * thrown in the hand-over, after the garbage result was handed to the serve: the serve sealed it,
   * and the thread died without marking the engine ended.
   */
  @Test
  void aFaultHeldBackOnTheDeadlinesEngineThread_isRefusedEngineFailed_notWaitedOut()
      throws Exception {
    long began = System.nanoTime();
    assertRefusedAndSettled(Duration.ofSeconds(20));
    assertThat(thrown).hasValue(1);
    assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));
  }

  /**
   * Regression: on the serving thread the region's end was reached only when the engine returned;
   * an engine that threw over the garbage its faulted read gave (an index out of range) left the
   * fault held back past the catch, to surface in the meter's close or raw out of the serve, and
   * the refusal named the garbage's symptom, not the cut.
   */
  @Test
  void aFaultHeldBackPastTheEnginesThrow_isRefusedEngineFailed_andSettledAsMetered()
      throws Exception {
    assertRefusedAndSettled(Duration.ZERO, true);
    assertThat(thrown).hasValue(1);
  }

  /** The same on an engine deadline's thread, whose region ended after a throw already. */
  @Test
  void aFaultHeldBackPastTheEnginesThrowOnTheDeadlinesThread_isRefusedEngineFailed()
      throws Exception {
    assertRefusedAndSettled(Duration.ofSeconds(20), true);
    assertThat(thrown).hasValue(1);
  }

  /**
   * Regression: a replay's re-serve did not end the engine's region with {@code heldFaults} as a
   * serve's does, so a fault its compiled code held back was not taken inside the replay: the
   * replay verified the run whose read had faulted, and the fault was left to surface later, raw,
   * on whichever thread had run the engine.
   */
  @Test
  void aFaultHeldBackByAReplaysReServe_isTheEngineFailedVerdict() throws Exception {
    assertReplayFailed(Duration.ZERO);
  }

  /** The same on the replay's own thread ({@code mesh-replay}), under an engine deadline. */
  @Test
  void aFaultHeldBackOnTheReplaysThread_isTheEngineFailedVerdict() throws Exception {
    assertReplayFailed(Duration.ofSeconds(20));
  }

  private void assertReplayFailed(Duration deadline) throws Exception {
    AtomicBoolean cut = new AtomicBoolean();
    ServingEngine engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            EngineResult served = super.serve(r, p);
            if (cut.get()) {
              held.set(true); // the re-serve's last read of the weights faulted, held back
            }
            return served;
          }
        };
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(engine)
            .engineDeadline(deadline)
            .heldFaults(this::heldFault)
            .build()) {
      ReplayVerdict v = replayedOnceCut(s, engine, "replayed", cut);

      assertFaultVerdict(v, "failed to re-serve");
      assertThat(thrown).hasValue(1);
      assertThat(held.get()).isFalse();
      assertThat(s.head().nextSequence()).as("the replay sealed nothing").isEqualTo(1);
    }
  }

  /**
   * Regression: a replay's questions to the engine (whether it is deterministic, its recipe, its
   * weights) did not end with {@code heldFaults} as a serve's do ({@code EngineAnswer}), so a fault
   * a question's read held back was not taken there: the engine re-ran on it, and the fault was
   * blamed on the re-serve, or, where nothing of the engine ran on that thread after (an engine
   * deadline's re-serve runs on a thread of its own), left to surface later, raw.
   */
  @Test
  void aFaultHeldBackByAReplaysQuestion_isTheEngineFailedVerdict() throws Exception {
    AtomicBoolean cut = new AtomicBoolean();
    ServingEngine engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public Recipe recipe() {
            Recipe recipe = super.recipe();
            if (cut.get()) {
              held.set(true); // the read behind its answer faulted, held back
            }
            return recipe;
          }
        };
    try (Steward s =
        f.bare(new DurableMemoryJournal()).backend(engine).heldFaults(this::heldFault).build()) {
      ReplayVerdict v = replayedOnceCut(s, engine, "asked", cut);

      assertFaultVerdict(v, "while asked its recipe");
      assertThat(thrown).hasValue(1);
      assertThat(held.get()).as("a fault left held on the caller's thread").isFalse();
    }
  }

  /** Serves {@code prompt} once, sets {@code cut}, and replays that serve's receipt. */
  private static ReplayVerdict replayedOnceCut(
      Steward s, ServingEngine engine, String prompt, AtomicBoolean cut) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 3, CEILING);
    TokenSequence payload = GrantFixture.payload(req);
    ServeResult served = s.serve(req, payload);
    cut.set(true);
    return s.replay(
        new ReplayInputs(served.receipt(), req, payload, s.opening(req.id()), Optional.empty()),
        engine);
  }

  /** {@code v} is ENGINE_FAILED for the mapped-read fault, said {@code where}. */
  private static void assertFaultVerdict(ReplayVerdict v, String where) {
    assertThat(v)
        .isInstanceOfSatisfying(
            ReplayVerdict.NotReplayable.class,
            n -> {
              assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.ENGINE_FAILED);
              assertThat(n.detail()).contains(where).contains("was cut short on disk while it ran");
            });
  }

  private void assertRefusedAndSettled(Duration deadline) throws Exception {
    assertRefusedAndSettled(deadline, false);
  }

  private void assertRefusedAndSettled(Duration deadline, boolean throwsOverGarbage)
      throws Exception {
    List<String> events = new ArrayList<>();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(journal)
            .meter(new RecordingMeter(events))
            .backend(
                new StewardGrantTest.Delegating(GrantFixture.ref()) {
                  @Override
                  public EngineResult serve(ServeRequest r, TokenSequence p)
                      throws EngineException {
                    EngineResult served = super.serve(r, p);
                    held.set(true); // its last read of the weights faulted; the JIT held it back
                    if (throwsOverGarbage) {
                      throw new ArrayIndexOutOfBoundsException("Index -7 out of bounds for 32000");
                    }
                    return served;
                  }
                })
            .engineDeadline(deadline)
            .heldFaults(this::heldFault)
            .build()) {
      ServeRequest req = GrantFixture.request("held back", 3, CEILING);

      Throwable t = f.refusedEngineFailed(s, chain, req);

      assertThat(t.getMessage())
          .contains("was cut short on disk while it ran")
          .doesNotContain("did not return within");
      EngineWorkJvmFailureTest.assertSettledAsMetered(s, chain, journal, events, BUDGET, CEILING);
    }
  }

  /**
   * Regression: an engine that caught the fault and said so in its own words (Jlama's) had them
   * wrapped in the steward's account of the same cut: "was cut short on disk while it ran (the
   * model's files were cut short on disk ...)", said twice.
   */
  @Test
  void anEngineThatNamedTheCutItself_isQuotedOnce() throws Exception {
    String jlamas =
        "the model's files were cut short on disk while the engine had them mapped (rewritten in"
            + " place, by cp or a download?): restart it once they are whole";
    GrantChain chain = f.chain(BUDGET);
    StewardGrantTest.Delegating engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            throw new EngineException(jlamas, new RuntimeException(compiledFault()));
          }
        };
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(new RecordingMeter(new ArrayList<>()))
            .backend(engine)
            .build()) {
      ServeRequest req = GrantFixture.request("cut", 3, CEILING);

      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));

      assertThat(t).isInstanceOf(ServeException.class);
      assertThat(t.getMessage()).endsWith(" failed: " + jlamas);
    }
  }

  /** The JVM's words alone, raw or repeated by an engine, are put in ours, once. */
  @Test
  void theJvmsWordsAlone_areExplainedOnce() {
    InternalError fault = compiledFault();
    String ours = "was cut short on disk while it ran (" + fault.getMessage() + ")";

    assertThat(Metering.why(fault)).contains(ours);
    assertThat(Metering.why(new EngineException("pass failed: " + fault, fault)))
        .contains("was cut short on disk while it ran (pass failed: " + fault + ")");
    assertThat(Metering.why(new RuntimeException(fault))).contains("was cut short on disk");
    assertThat(Metering.why(new EngineException("no such token"))).isEqualTo("no such token");
  }

  /**
   * Regression: the questions asked of the engine outside its work did not end with {@code
   * heldFaults}, so a fault held back by its {@code weights()} (read after the work) surfaced later
   * and raw; here nothing took it, and the serve was sealed over the garbage it read.
   */
  @Test
  void aFaultHeldBackByTheWeightsAskedAfterTheWork_isRefusedEngineFailed_namingTheQuestion()
      throws Exception {
    AtomicInteger asked = new AtomicInteger();
    assertAQuestionsHeldFaultRefused(
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public Optional<WeightsBinding> weights() {
            if (asked.incrementAndGet() == 2) {
              held.set(true); // the check after the work read its cut digest file
            }
            return super.weights();
          }
        },
        "could not name its weights");
  }

  /** The same for the recipe the sealer asks for, the last question of a serve. */
  @Test
  void aFaultHeldBackByTheRecipe_isRefusedEngineFailed_namingTheQuestion() throws Exception {
    assertAQuestionsHeldFaultRefused(
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public Recipe recipe() {
            held.set(true);
            return super.recipe();
          }
        },
        "could not name its recipe");
  }

  private void assertAQuestionsHeldFaultRefused(ServingEngine engine, String question)
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(new RecordingMeter(new ArrayList<>()))
            .backend(engine)
            .heldFaults(this::heldFault)
            .build()) {
      ServeRequest req = GrantFixture.request("held by a question", 3, CEILING);

      Throwable t = f.refusedEngineFailed(s, chain, req);

      assertThat(t.getMessage()).contains(question).contains("was cut short on disk while it ran");
      assertThat(thrown).hasValue(1);
      assertThat(held.get()).isFalse();
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /**
   * Regression: an engine's exception with no message of its own, caused by the fault, was
   * explained as "it gave no reason" although the JVM's words were on its cause.
   */
  @Test
  void anEngineExceptionWithNoMessage_causedByTheFault_quotesTheJvmsWords() {
    InternalError fault = compiledFault();

    assertThat(Metering.why(new EngineException(null, fault)))
        .isEqualTo(
            "a file it reads in place (mapped; its weights?) was cut short on disk while it ran ("
                + fault.getMessage()
                + "); it needs the whole file back, and a restart if it maps the file only once");
    assertThat(Metering.why(new IllegalStateException("", new RuntimeException(fault))))
        .contains("(" + fault.getMessage() + ")")
        .doesNotContain("gave no reason");
    assertThat(Metering.why(new EngineException(null, new RuntimeException("other"))))
        .isEqualTo("it threw " + EngineException.class.getName() + ", and it gave no reason");
  }

  /**
   * Regression: the tokenizer's region (a prompt given as text, tokenized by the routed engine) did
   * not end with {@code heldFaults}, so a fault its compiled code held back was taken by the next
   * question asked of the engine and refused in that question's words ("could not say its context
   * size"), not as the tokenizing that read the cut file.
   */
  @Test
  void aFaultHeldBackByTheTokenizer_isRefusedEngineFailed_namingTheTokenizing() throws Exception {
    PromptText prompt = PromptText.of("held by the tokenizer");
    GrantChain chain = f.chain(BUDGET);
    ServingEngine engine =
        new EncodeReplaced(
            (real, bytes) -> {
              held.set(true); // its vocabulary, mapped, was cut short under it
              return real.encode(bytes);
            });
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(new RecordingMeter(new ArrayList<>()))
            .backend(engine)
            .heldFaults(this::heldFault)
            .build()) {
      ServeRequest req = ServeRequest.generation(prompt, 3, Fidelity.F1, CEILING);

      Throwable t = catchThrowable(() -> s.serve(req, prompt, f.present(chain, req)));

      assertThat(t)
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      assertThat(t.getMessage())
          .contains("could not turn the prompt into its payload")
          .contains("was cut short on disk while it ran")
          .doesNotContain("context size");
      assertThat(thrown).hasValue(1);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }
}
