package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;

/**
 * §4 with SPEC.md §60.8 ("When the fault is thrown"): a fault of a mapped read (a backend's weights
 * file cut short) that the backend's compiled code held back while it was judged is thrown at the
 * end of its judging and refuses that backend, as its throw would; it is never left to surface
 * later, in another backend's judging or the steward's next region, blamed on that. The JVM's
 * delivery is stood in for by a throw of the fault, as a real one needs JIT-compiled code.
 */
class HeldFaultRefusesTheJudgedBackendTest {
  private static final ServeRequest REQUEST =
      ServeRequest.generation(
          ContentId.ofBytes(new byte[] {7}), 10, new ServeBounds(20, Fidelity.F1, 1_000_000));

  /** The JVM's fault for the read, held back until {@link #run} after {@link #hold}. */
  private static final class HeldFault implements Runnable {
    private final AtomicReference<InternalError> pending = new AtomicReference<>();

    void hold() {
      pending.set(new InternalError("a fault occurred in an unsafe memory access operation"));
    }

    @Override
    public void run() {
      InternalError fault = pending.getAndSet(null);
      if (fault != null) {
        throw fault;
      }
    }
  }

  /** The cheapest backend: asked its cost profile, it reads a cut file and may throw after. */
  private static final class ReadsACutFile extends ForwardingEngine {
    private final HeldFault held;
    private final boolean throwsOverTheGarbage;

    ReadsACutFile(HeldFault held, boolean throwsOverTheGarbage) {
      super(StubBackend.of("cut", Fidelity.F3, 1));
      this.held = held;
      this.throwsOverTheGarbage = throwsOverTheGarbage;
    }

    @Override
    public CostProfile costProfile() {
      held.hold();
      if (throwsOverTheGarbage) {
        throw new IllegalStateException("a table index out of range");
      }
      return super.costProfile();
    }
  }

  private static RouteDecision route(boolean throwsOverTheGarbage) throws Exception {
    HeldFault held = new HeldFault();
    Router router =
        new Router(
            List.of(
                new ReadsACutFile(held, throwsOverTheGarbage),
                StubBackend.of("healthy", Fidelity.F2, 10)),
            Map.of(),
            held);
    return router.route(REQUEST);
  }

  /** Regression: the fault was left pending, the cut backend judged on garbage and chosen. */
  @Test
  void aFaultHeldBackWhileABackendIsJudged_refusesThatBackend_andAnotherServes() throws Exception {
    RouteDecision d = route(false);

    assertThat(d.chosen().name()).isEqualTo("healthy");
    assertThat(d.candidates().getFirst().inadmissibility())
        .hasValueSatisfying(
            why -> {
              assertThat(why.kind()).isEqualTo(Inadmissibility.Kind.NOT_PERMITTED);
              assertThat(why.detail()).isEqualTo("not permitted: it failed while being judged");
              assertThat(why.thrown())
                  .hasValueSatisfying(
                      t -> assertThat(t).contains("unsafe memory access operation"));
            });
    assertThat(d.candidates().get(1).inadmissibility()).isEqualTo(Optional.empty());
  }

  /**
   * Regression: a backend that threw over the garbage was refused for its throw, the fault left
   * pending for the next region; now the fault is what refuses it.
   */
  @Test
  void aFaultHeldBackUnderTheBackendsThrow_isWhatRefusesIt() throws Exception {
    RouteDecision d = route(true);

    assertThat(d.chosen().name()).isEqualTo("healthy");
    assertThat(d.candidates().getFirst().inadmissibility().orElseThrow().thrown())
        .hasValueSatisfying(t -> assertThat(t).contains("unsafe memory access operation"));
    assertThat(d.candidates().get(1).inadmissibility()).isEqualTo(Optional.empty());
  }
}
