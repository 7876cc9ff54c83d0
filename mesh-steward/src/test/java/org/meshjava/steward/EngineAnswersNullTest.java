package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.WeightsBinding;
import org.meshjava.jcp.GrantChain;

/**
 * Every question the steward asks an engine outside its work, answered null: the serve is refused
 * {@code ENGINE_FAILED} in words that say what was asked once and that the engine answered nothing,
 * never a {@code NullPointerException} nobody threw; the serve is settled either way.
 */
class EngineAnswersNullTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** The reference engine "ref", whose answer to {@code which} is null. */
  private static final class AnswersNull extends EncodeReplaced {
    private final String which;
    private final java.util.concurrent.atomic.AtomicInteger weightsAsked =
        new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger profileAsked =
        new java.util.concurrent.atomic.AtomicInteger();

    AnswersNull(String which) {
      super(
          (real, bytes) -> which.equals("encode") ? null : real.encode(bytes),
          (real, output) -> which.equals("decode") ? null : real.decode(output));
      this.which = which;
    }

    @Override
    public @org.jspecify.annotations.Nullable Set<EnergyDomain> domains() {
      return which.equals("domains") ? null : super.domains();
    }

    @Override
    public @org.jspecify.annotations.Nullable Optional<WeightsBinding> weights() {
      // The router asks first, for the grant's rule, and refuses a backend answering null there
      // itself: null from the steward's own question on.
      return which.equals("weights") && weightsAsked.incrementAndGet() > 1 ? null : super.weights();
    }

    @Override
    public @org.jspecify.annotations.Nullable TokenAccounting tokenAccounting() {
      return which.equals("tokenAccounting") ? null : super.tokenAccounting();
    }

    @Override
    public @org.jspecify.annotations.Nullable OptionalLong contextTokens() {
      return which.equals("contextTokens") ? null : super.contextTokens();
    }

    @Override
    public @org.jspecify.annotations.Nullable CostProfile costProfile() {
      // As weights: the router asks first, and refuses a backend answering null there itself.
      // After the work: the router and the ceiling's check ask before it.
      int asked = profileAsked.incrementAndGet();
      return which.equals("costProfile") && asked > 1
              || which.equals("costProfileAfterTheWork") && asked > 2
          ? null
          : super.costProfile();
    }

    @Override
    public @org.jspecify.annotations.Nullable Recipe recipe() {
      return which.equals("recipe") ? null : super.recipe();
    }
  }

  /**
   * Regression: a null answer was refused through {@code Objects.requireNonNull(answer, doing)}, so
   * the refusal said the question twice over a NullPointerException ("could not turn the prompt
   * into its payload: java.lang.NullPointerException: turn the prompt into its payload"); and the
   * recipe was asked through its name, so a null recipe was a NullPointerException's words.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "domains, name its energy domains",
    "weights, name its weights",
    "tokenAccounting, say how it counts tokens",
    "contextTokens, say its context size",
    "recipe, name its recipe",
    "costProfile, name its cost profile",
    "encode, turn the prompt into its payload",
    "decode, decode its output",
  })
  void aQuestionAnsweredNull_isEngineFailed_sayingItAnsweredNothing(String which, String doing)
      throws Exception {
    AnswersNull engine = new AnswersNull(which);
    GrantChain chain = f.chain(BUDGET);
    PromptText prompt = PromptText.of("answered null");
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = ServeRequest.generation(prompt, 3, Fidelity.F1, CEILING);

      Throwable t = catchThrowable(() -> s.serve(req, prompt, f.present(chain, req)));

      assertThat(t)
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      assertThat(t.getMessage())
          .isEqualTo(
              "ENGINE_FAILED: backend ref failed: it could not "
                  + doing
                  + ": it answered nothing (null)");
      assertThat(t.getCause()).isNull();
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isGreaterThan(BUDGET - CEILING);
    }
  }

  /**
   * The cost profile answered null only after the work, when the steward prices what was served:
   * refused as the engine failing in the same words, settled at no more than the ceiling.
   *
   * <p>Regression: refused in a NullPointerException's words about the steward's code ("Cannot
   * invoke ... because the return value of ... costProfile() is null").
   */
  @Test
  void aCostProfileAnsweredNullAfterTheWork_isEngineFailed_sayingItAnsweredNothing()
      throws Exception {
    AnswersNull engine = new AnswersNull("costProfileAfterTheWork");
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("priced after", 3, CEILING);

      ServeException e = f.refusedEngineFailed(s, chain, req);

      assertThat(e.getMessage())
          .isEqualTo(
              "ENGINE_FAILED: backend ref failed: it could not name its cost profile: it answered"
                  + " nothing (null)");
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isGreaterThanOrEqualTo(BUDGET - CEILING);
    }
  }
}
