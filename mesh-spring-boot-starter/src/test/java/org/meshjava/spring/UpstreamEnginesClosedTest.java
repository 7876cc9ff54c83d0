package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The upstream engines the starter builds from {@code mesh.backends} are closed with the context,
 * after the steward: the steward never closes the engines it is given, and each holds its idle
 * connections to its upstream (and a share of an HTTP client).
 */
class UpstreamEnginesClosedTest {
  /** The starter with one upstream, {@code remote}, built from {@code mesh.backends}. */
  private static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues(
              "mesh.meter=estimator",
              "mesh.backends[0].name=remote",
              "mesh.backends[0].type=upstream",
              "mesh.backends[0].base-url=http://127.0.0.1:9/v1",
              "mesh.backends[0].model=m");

  private static final ServeRequest REQUEST =
      ServeRequest.generation(PromptText.of("after the close"), 4, Fidelity.F0, 1_000_000);

  /** Regression: nothing closed them, so each context started and closed left them open. */
  @Test
  void closingTheContext_closesTheUpstreamEnginesItBuilt() throws Exception {
    AtomicReference<UpstreamEngine> built = new AtomicReference<>();
    RUNNER.run(
        context ->
            built.set((UpstreamEngine) context.getBean(Steward.class).backends().getFirst()));

    assertThatThrownBy(() -> built.get().serve(REQUEST, TokenSequence.of(97)))
        .isInstanceOf(EngineException.class)
        .hasMessage("the upstream engine is closed");
  }

  /**
   * A start that fails once the steward is built (here a customizer's {@code built} hook throwing)
   * closes them too: Spring destroys the hold with the beans it had made.
   */
  @Test
  void aStartFailingAfterTheStewardIsBuilt_closesTheUpstreamEnginesItBuilt() {
    AtomicReference<UpstreamEngine> built = new AtomicReference<>();
    RUNNER
        .withBean(
            StewardBuilderCustomizer.class,
            () ->
                new StewardBuilderCustomizer() {
                  @Override
                  public void customize(Steward.Builder builder) {}

                  @Override
                  public void built(Steward steward) {
                    built.set((UpstreamEngine) steward.backends().getFirst());
                    throw new IllegalStateException("the application refuses this steward");
                  }
                })
        .run(context -> assertThat(context).hasFailed());

    assertThat(built.get()).as("the engine the failed start built").isNotNull();
    assertThatThrownBy(() -> built.get().serve(REQUEST, TokenSequence.of(97)))
        .isInstanceOf(EngineException.class)
        .hasMessage("the upstream engine is closed");
  }
}
