package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.WeightsBinding;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * An {@code OutOfMemoryError} from an engine's {@code weights()} or {@code recipe()}, asked outside
 * its work, is the JVM failing, not the backend: it passes as it is ({@link JvmFailure}), never
 * refused {@code ENGINE_FAILED} as the backend's fault, and what the serve reserved is let go (the
 * grant settled at nothing before the work, at what was metered after it). Other errors (an {@code
 * AssertionError} in the engine's code) are the backend failing, refused as before.
 */
class EngineJvmFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  private final Breaks engine = new Breaks();

  /** The reference engine, whose weights() or recipe() throws the error set on it. */
  private static final class Breaks extends ForwardingEngine {
    volatile Error weights;
    volatile Error recipe;

    Breaks() {
      super(GrantFixture.ref());
    }

    @Override
    public Optional<WeightsBinding> weights() {
      Error e = weights;
      if (e != null) {
        throw e;
      }
      return delegate().weights();
    }

    @Override
    public Recipe recipe() {
      Error e = recipe;
      if (e != null) {
        throw e;
      }
      return delegate().recipe();
    }
  }

  /** Arms the engine's weights() with {@code error} once a grant's decision is queued. */
  private ForwardingJournal armsOnDecision(Error error) {
    return new ForwardingJournal(new DurableMemoryJournal()) {
      @Override
      public Pending enqueue(JournalEntry entry) throws JournalException {
        Pending queued = super.enqueue(entry);
        if (entry instanceof JournalEntry.Authorised) {
          engine.weights = error;
        }
        return queued;
      }
    };
  }

  /** What the granted serve threw: an Error is caught here, so it never ends the test JVM. */
  private Throwable thrownBy(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 3, CEILING);
    try {
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      return null;
    } catch (ServeException | Error e) {
      return e;
    }
  }

  /** Regression: it was refused ENGINE_FAILED, the heap's failure blamed on the backend. */
  @Test
  void anOutOfMemoryErrorFromWeightsBeforeTheWork_passes_andDebitsNothing() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(armsOnDecision(new OutOfMemoryError("simulated"))).backend(engine).build()) {
      assertThat(thrownBy(s, chain, "heap gone")).isInstanceOf(OutOfMemoryError.class);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /** Regression: the same at the seal; the metered figure stays debited. */
  @Test
  void anOutOfMemoryErrorFromRecipeAtTheSeal_passes_andDebitsWhatWasMetered() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    engine.recipe = new OutOfMemoryError("simulated");
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      assertThat(thrownBy(s, chain, "heap gone at the seal")).isInstanceOf(OutOfMemoryError.class);
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET).isGreaterThan(BUDGET - CEILING);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /** An assertion in the engine's code is the backend failing: refused, nothing debited. */
  @Test
  void anAssertionErrorFromWeights_isEngineFailed() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(armsOnDecision(new AssertionError("weights broke"))).backend(engine).build()) {
      assertThat(thrownBy(s, chain, "engine's own"))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
    }
  }
}
