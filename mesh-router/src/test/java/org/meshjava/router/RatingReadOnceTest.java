package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;

/**
 * §3.2.1, §4: the rating a route candidate records is the one the backend was admitted on. The
 * steward seals the candidate's rating as {@code fidelity_advertised} and derives {@code
 * fidelity_met} from it, so a candidate that records another reading of the engine's {@code
 * fidelity()} than the one judged against the floor would seal a rating below the floor.
 */
class RatingReadOnceTest {
  /** Rated F3 when first asked, F1 ever after: a rating that drops while the router weighs it. */
  private static final class DropsAfterFirstRead extends ForwardingEngine {
    private final AtomicInteger reads = new AtomicInteger();

    DropsAfterFirstRead() {
      super(StubBackend.of("dropping", Fidelity.F3, 10));
    }

    @Override
    public Fidelity fidelity() {
      return reads.getAndIncrement() == 0 ? Fidelity.F3 : Fidelity.F1;
    }
  }

  @Test
  void theChosenCandidatesRating_isTheOneAdmittedOn_evenWhenTheEngineAnswersDifferentlyLater()
      throws Exception {
    Router router = new Router(List.of(new DropsAfterFirstRead()));
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 10, new ServeBounds(20, Fidelity.F2, 1_000_000));

    RouteDecision decision = router.route(request);

    assertThat(decision.chosenCandidate().fidelity()).isEqualTo(Fidelity.F3);
    assertThat(decision.justification()).contains("F3>=F2");
  }
}
