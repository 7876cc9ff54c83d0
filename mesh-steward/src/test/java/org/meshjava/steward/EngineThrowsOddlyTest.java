package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.jcp.GrantChain;

/**
 * An engine's throwables are its code: one whose words cannot be built, or one instance thrown at
 * every step, still ends the serve in a typed {@code ENGINE_FAILED} refusal, the grant settled,
 * never in the throw of building the refusal.
 */
@Timeout(30)
class EngineThrowsOddlyTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** An exception whose message and {@code toString} throw. */
  static final class Unsayable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    @Override
    public String getMessage() {
      throw new IllegalStateException("no words");
    }

    @Override
    public String toString() {
      throw new IllegalStateException("no words");
    }
  }

  /** An engine that notes whether its work was asked for. */
  private abstract static class FailsAfterServing extends StewardGrantTest.Delegating {
    volatile boolean served;

    FailsAfterServing() {
      super(GrantFixture.ref());
    }
  }

  /**
   * Regression: the refusal's words were read from the exception, whose {@code getMessage} threw:
   * that throw ended the serve instead of the typed refusal.
   */
  @Test
  void anEngineThrowWhoseWordsThrow_isRefusedEngineFailed_givingNoReason() throws Exception {
    Throwable t =
        serveOn(
            new StewardGrantTest.Delegating(GrantFixture.ref()) {
              @Override
              public EngineResult serve(ServeRequest r, TokenSequence p) {
                throw new Unsayable();
              }
            });

    assertThat(t.getMessage())
        .endsWith(" failed: it threw " + Unsayable.class.getName() + ", and it gave no reason");
  }

  /**
   * Regression: the refusal's words look for the JVM's mapped-read fault among the causes, and read
   * the message of an {@link InternalError} of the engine's own class, which threw: that throw
   * ended the serve instead of the typed refusal.
   */
  @Test
  void anEngineThrowCausedByAnInternalErrorWhoseWordsThrow_isRefusedEngineFailed()
      throws Exception {
    InternalError unsayable =
        new InternalError() {
          private static final long serialVersionUID = 1L;

          @Override
          public String getMessage() {
            throw new IllegalStateException("no words");
          }
        };
    Throwable t =
        serveOn(
            new StewardGrantTest.Delegating(GrantFixture.ref()) {
              @Override
              public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
                throw new EngineException("its kernel failed", unsayable);
              }
            });

    assertThat(t.getMessage()).endsWith(" failed: its kernel failed");
  }

  /**
   * Regression: a question's refusal (its weights after the work) was built with the exception's
   * {@code toString}, which threw past the serve.
   */
  @Test
  void aQuestionsThrowWhoseWordsThrow_isRefusedEngineFailed_namingItsClass() throws Exception {
    FailsAfterServing engine =
        new FailsAfterServing() {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            EngineResult result = super.serve(r, p);
            served = true;
            return result;
          }

          @Override
          public Optional<WeightsBinding> weights() {
            if (served) {
              throw new Unsayable();
            }
            return super.weights();
          }
        };

    Throwable t = serveOn(engine);

    assertThat(t.getMessage()).endsWith("could not name its weights: " + Unsayable.class.getName());
  }

  /**
   * Regression: an engine that throws one instance from its work and then from its cost profile had
   * the instance suppressed on itself, an {@code IllegalArgumentException} ("Self-suppression not
   * permitted") past the serve.
   */
  @Test
  void oneInstanceThrownByTheWorkAndTheCostProfile_isRefusedEngineFailed() throws Exception {
    IllegalStateException broken = new IllegalStateException("the engine is broken");
    FailsAfterServing engine =
        new FailsAfterServing() {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) {
            served = true;
            throw broken;
          }

          @Override
          public CostProfile costProfile() {
            if (served) {
              throw broken;
            }
            return super.costProfile();
          }
        };

    Throwable t = serveOn(engine);

    assertThat(t.getMessage()).endsWith(" failed: the engine is broken");
  }

  /**
   * Regression: the refusal's words look for the JVM's mapped-read fault among the causes, and
   * asked an {@link InternalError} of the engine's own class for its cause and its frames, which
   * threw: that throw ("IllegalStateException: no frames") ended the serve instead of the typed
   * refusal.
   */
  @Test
  void anEngineThrowCausedByAnErrorWhoseCauseAndFramesThrow_isRefusedEngineFailed()
      throws Exception {
    InternalError partless =
        new InternalError("its kernel failed") {
          private static final long serialVersionUID = 1L;

          @Override
          public synchronized Throwable getCause() {
            throw new IllegalStateException("no cause");
          }

          @Override
          public StackTraceElement[] getStackTrace() {
            throw new IllegalStateException("no frames");
          }
        };
    Throwable t =
        serveOn(
            new StewardGrantTest.Delegating(GrantFixture.ref()) {
              @Override
              public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
                throw new EngineException("the pass failed", partless);
              }
            });

    assertThat(t.getMessage()).endsWith(" failed: the pass failed");
  }

  /**
   * Regression: a tokenizer that answered no payload (null) for a prompt given as text was not
   * refused as the tokenizing: the serve went on and was refused at a later question, in its words
   * ("could not estimate its payload: java.lang.NullPointerException: ... because "payload" is
   * null").
   */
  @Test
  void aTokenizerThatAnswersNoPayload_isRefusedEngineFailed_holdingNothing() throws Exception {
    PromptText prompt = PromptText.of("no payload");
    GrantChain chain = f.chain(BUDGET);
    ServingEngine engine = new EncodeReplaced((real, bytes) -> null);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = ServeRequest.generation(prompt, 3, Fidelity.F1, CEILING);

      Throwable t = catchThrowable(() -> s.serve(req, prompt, f.present(chain, req)));

      assertThat(t)
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("could not turn the prompt into its payload");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /** Serves once on {@code engine}: the throw, asserted refused and settled while it is open. */
  private Throwable serveOn(ServingEngine engine) throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(new RecordingMeter(new ArrayList<>()))
            .backend(engine)
            .build()) {
      ServeRequest req = GrantFixture.request("oddly", 3, CEILING);

      Throwable t = f.refusedEngineFailed(s, chain, req);

      assertThat(s.unresolved()).isEmpty();
      // Settled once, at most at the ceiling (the whole of it where the cost profile failed too).
      assertThat(s.spend().remainingUj(chain)).isBetween(BUDGET - CEILING, BUDGET - 1);
      return t;
    }
  }
}
