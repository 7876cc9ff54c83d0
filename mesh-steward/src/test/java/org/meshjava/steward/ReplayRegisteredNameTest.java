package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;

/**
 * A replay holds the engine to the receipt's backend by the name the steward registered, routed and
 * sealed it under ({@link Steward#backendName}), not by its {@code name()} asked again: an engine
 * that names itself otherwise once built (after the model it loaded) is still the backend the
 * receipt names, as {@code EngineRenamedTest} pins for the serve itself.
 */
class ReplayRegisteredNameTest {

  /** Answers "ref" until renamed, then "ref-loaded". */
  private static final class Renames extends ForwardingEngine {
    volatile boolean renamed;

    Renames() {
      super(ReferenceEngine.builder().name("ref").build());
    }

    @Override
    public String name() {
      return renamed ? "ref-loaded" : super.name();
    }
  }

  /** Regression: replay compared name() asked again, "ref-loaded", and answered OTHER_BACKEND. */
  @Test
  void anEngineRenamedAfterTheBuild_replaysUnderItsRegisteredName() throws Exception {
    Renames engine = new Renames();
    ServeRequest request = GrantFixture.request("replayed", 4, 1_000_000);
    TokenSequence prompt = GrantFixture.payload(request);
    try (Steward s =
        Steward.ephemeral()
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(engine)
            .build()) {
      ServeResult r = s.serve(request, prompt);
      engine.renamed = true;
      ReplayInputs inputs =
          new ReplayInputs(r.receipt(), request, prompt, s.opening(request.id()))
              .withDisclosure(s.disclose(r, prompt));

      assertThat(s.replay(inputs, engine)).isEqualTo(new ReplayVerdict.Verified());
      assertThat(Replayer.replay(inputs, engine, s.backendName(engine)))
          .isEqualTo(new ReplayVerdict.Verified());
      // Without a registry, the engine's own word is all a replay has: it now names another.
      assertThat(Replayer.replay(inputs, engine))
          .isInstanceOfSatisfying(
              ReplayVerdict.NotReplayable.class,
              n -> assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.OTHER_BACKEND));
      // The registered name is the steward's only for its own backends.
      assertThatThrownBy(() -> s.replay(inputs, ReferenceEngine.builder().name("ref").build()))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
