package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;

/**
 * A replay (§6.4) on an engine whose {@code recipe()}, {@code weights()} or {@code deterministic()}
 * throws: the engine failing, one {@code ENGINE_FAILED} verdict naming what was asked, never an
 * exception past the replay, whose contract is exactly one verdict. The JVM failing (an {@code
 * OutOfMemoryError}) is no verdict on the engine and passes as it is.
 */
class ReplayOnABrokenEngineTest {

  /** The honest engine, with one of its accessors throwing {@code thrown}. */
  private static final class Breaks extends ForwardingEngine {
    private final String which;
    private final Throwable thrown;

    Breaks(String which, Throwable thrown) {
      super(ReplayTest.honest());
      this.which = which;
      this.thrown = thrown;
    }

    private void maybe(String asked) {
      if (which.equals(asked)) {
        if (thrown instanceof Error e) {
          throw e;
        }
        throw (RuntimeException) thrown;
      }
    }

    @Override
    public Recipe recipe() {
      maybe("recipe");
      return delegate().recipe();
    }

    @Override
    public Optional<WeightsBinding> weights() {
      maybe("weights");
      return delegate().weights();
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence payload) throws EngineException {
      maybe("serve");
      return delegate().serve(request, payload);
    }

    @Override
    public boolean deterministic() {
      maybe("deterministic");
      return delegate().deterministic();
    }
  }

  /** Regression: each threw its IllegalStateException out of Replayer.replay. */
  @Test
  void anEngineAccessorThatThrows_isTheEngineFailedVerdict() throws Exception {
    ReplayTest.Sealed s = ReplayTest.serve(ReplayTest.honest());
    for (String which : new String[] {"recipe", "weights", "deterministic"}) {
      assertEngineFailed(
          s,
          new Breaks(which, new IllegalStateException(which + " unreadable")),
          which + " unreadable");
    }
  }

  /** Replays {@code s} on {@code engine}: the verdict must be ENGINE_FAILED with {@code detail}. */
  private static void assertEngineFailed(ReplayTest.Sealed s, Breaks engine, String detail)
      throws Exception {
    assertThat(ReplayTest.replay(s, engine, Optional.empty()))
        .as(engine.which)
        .isInstanceOfSatisfying(
            ReplayVerdict.NotReplayable.class,
            n -> {
              assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.ENGINE_FAILED);
              assertThat(n.detail()).contains(detail);
            });
  }

  /**
   * Regression: the verdict's detail was built from the throw's message ({@code serve}) or its
   * {@code toString} (an accessor), which are the engine's code too and threw out of the replay.
   */
  @Test
  void anEngineThrowWhoseWordsThrow_isTheEngineFailedVerdict() throws Exception {
    ReplayTest.Sealed s = ReplayTest.serve(ReplayTest.honest());
    for (String which : new String[] {"serve", "weights"}) {
      assertEngineFailed(
          s,
          new Breaks(which, new EngineThrowsOddlyTest.Unsayable()),
          EngineThrowsOddlyTest.Unsayable.class.getName());
    }
  }

  /**
   * Regression: a re-serve that threw with a blank message was "failed to re-serve: " and nothing
   * more; one that returned no result was described in the JVM's words about a null dereference
   * inside the replayer. Both say what happened, as a serve's refusal does.
   */
  @Test
  void aReServeThatSaysNothing_orReturnsNothing_isTheEngineFailedVerdict_inWords()
      throws Exception {
    ReplayTest.Sealed s = ReplayTest.serve(ReplayTest.honest());
    assertEngineFailed(
        s,
        new Breaks("serve", new IllegalStateException(" ")),
        "failed to re-serve: it threw java.lang.IllegalStateException, and it gave no reason");
    ForwardingEngine returnsNothing =
        new ForwardingEngine(ReplayTest.honest()) {
          @Override
          @SuppressWarnings("NullAway") // the engine under test breaks its contract
          public EngineResult serve(ServeRequest request, TokenSequence payload) {
            return null;
          }
        };
    assertThat(ReplayTest.replay(s, returnsNothing, Optional.empty()))
        .isInstanceOfSatisfying(
            ReplayVerdict.NotReplayable.class,
            n -> {
              assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.ENGINE_FAILED);
              assertThat(n.detail()).endsWith("failed to re-serve: it returned no result (null)");
            });
  }

  /** An assertion in the engine's code is the engine failing, too. */
  @Test
  void anEngineAccessorThatThrowsAnAssertionError_isTheEngineFailedVerdict() throws Exception {
    ReplayTest.Sealed s = ReplayTest.serve(ReplayTest.honest());
    ReplayTest.notReplayable(
        ReplayTest.replay(
            s, new Breaks("recipe", new AssertionError("recipe broke")), Optional.empty()),
        ReplayVerdict.Reason.ENGINE_FAILED);
  }

  /** The heap running out is the process failing, not a verdict on the engine. */
  @Test
  void anOutOfMemoryError_passesAsItIs() throws Exception {
    ReplayTest.Sealed s = ReplayTest.serve(ReplayTest.honest());
    assertThatThrownBy(
            () ->
                ReplayTest.replay(
                    s,
                    new Breaks("weights", new OutOfMemoryError("Java heap space")),
                    Optional.empty()))
        .isInstanceOf(OutOfMemoryError.class);
  }
}
