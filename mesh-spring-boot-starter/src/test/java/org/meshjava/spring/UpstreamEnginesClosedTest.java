package org.meshjava.spring;

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
  /** Regression: nothing closed them, so each context started and closed left them open. */
  @Test
  void closingTheContext_closesTheUpstreamEnginesItBuilt() throws Exception {
    AtomicReference<UpstreamEngine> built = new AtomicReference<>();
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
        .withPropertyValues(
            "mesh.meter=estimator",
            "mesh.backends[0].name=remote",
            "mesh.backends[0].type=upstream",
            "mesh.backends[0].base-url=http://127.0.0.1:9/v1",
            "mesh.backends[0].model=m")
        .run(
            context ->
                built.set((UpstreamEngine) context.getBean(Steward.class).backends().getFirst()));

    PromptText prompt = PromptText.of("after the close");
    assertThatThrownBy(
            () ->
                built
                    .get()
                    .serve(
                        ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000),
                        TokenSequence.of(97)))
        .isInstanceOf(EngineException.class)
        .hasMessage("the upstream engine is closed");
  }
}
