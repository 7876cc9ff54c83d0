package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A backend whose {@code weights()} throws (a digest read from a file that has gone, say) once a
 * granted serve is decided, or once its work is done, or whose {@code recipe()} throws at the seal.
 * The steward asks it before and after the work (§2), and it is the engine's code as much as its
 * {@code serve}: the serve is refused {@code ENGINE_FAILED} and its grant settled at what ran.
 */
class EngineWeightsFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  private final WeightsFail engine =
      new WeightsFail(
          ReferenceEngine.builder()
              .name("ref")
              .costProfile(CostProfile.perToken(100))
              .workPerToken(1)
              .build());

  /** Breaks the engine's weights once a grant's decision is queued: before the work. */
  private final class BreaksWeightsOnDecision extends ForwardingJournal {
    BreaksWeightsOnDecision() {
      super(new DurableMemoryJournal());
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending queued = super.enqueue(entry);
      if (entry instanceof JournalEntry.Authorised) {
        engine.failing = true;
      }
      return queued;
    }
  }

  /**
   * Regression: the IllegalStateException escaped the serve, and the grant was debited the whole
   * ceiling, as for work nothing metered, though no work ran.
   */
  @Test
  void weightsThatThrowBeforeTheWork_refuseTheServe_andDebitNothing() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new BreaksWeightsOnDecision()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("weights gone", 3, CEILING);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("weights file unreadable");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /** Regression: the IllegalStateException escaped the serve after its grant was debited. */
  @Test
  void weightsThatThrowAfterTheWork_refuseTheServe_andDebitWhatWasMetered() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    engine.failAfterServe = true;
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("weights gone after", 3, CEILING);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("weights file unreadable");
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET).isGreaterThan(BUDGET - CEILING);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /**
   * A backend whose {@code recipe()}, read for the receipt once the work is metered and debited,
   * throws: the serve is refused {@code ENGINE_FAILED}, its grant debited what was metered.
   *
   * <p>Regression: the IllegalStateException escaped the serve.
   */
  @Test
  void aRecipeThatThrowsAtTheSeal_refusesTheServe_andDebitsWhatWasMetered() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    engine.recipeFailing = true;
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("recipe gone", 3, CEILING);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("recipe unreadable");
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET).isGreaterThan(BUDGET - CEILING);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /** Test engine: {@code weights()} throws while {@link #failing}, {@code recipe()} likewise. */
  static final class WeightsFail extends ForwardingEngine {
    volatile boolean failing;
    volatile boolean failAfterServe;
    volatile boolean recipeFailing;

    @Override
    public Recipe recipe() {
      if (recipeFailing) {
        throw new IllegalStateException("recipe unreadable");
      }
      return delegate().recipe();
    }

    WeightsFail(ReferenceEngine inner) {
      super(inner);
    }

    @Override
    public Optional<WeightsBinding> weights() {
      if (failing) {
        throw new IllegalStateException("weights file unreadable");
      }
      return delegate().weights();
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      EngineResult result = delegate().serve(request, prompt);
      if (failAfterServe) {
        failing = true;
      }
      return result;
    }
  }
}
