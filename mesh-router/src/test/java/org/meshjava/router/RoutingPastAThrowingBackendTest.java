package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;

/**
 * §4: what the router asks a backend while weighing it (its cost profile, rating and limits, and an
 * extra rule that reads its weights) is the backend's own code. A throw from it refuses that one
 * candidate, {@code NOT_PERMITTED} with the throw for the operator only, and routing goes on; it
 * never fails a request another backend can serve. The JVM failing (an {@code OutOfMemoryError})
 * passes as it is: it is no verdict on the backend, and no refusal of the request.
 */
class RoutingPastAThrowingBackendTest {
  private static final ServeRequest REQUEST =
      ServeRequest.generation(
          ContentId.ofBytes(new byte[] {7}), 10, new ServeBounds(20, Fidelity.F1, 1_000_000));

  /** The cheapest backend, with one of the accessors the router asks throwing {@code thrown}. */
  private static final class Throws extends ForwardingEngine {
    private final String which;
    private final Throwable thrown;

    Throws(String which, Throwable thrown) {
      super(StubBackend.of("broken", Fidelity.F3, 1));
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
    public CostProfile costProfile() {
      maybe("costProfile");
      return super.costProfile();
    }

    @Override
    public Fidelity fidelity() {
      maybe("fidelity");
      return super.fidelity();
    }

    @Override
    public ServeLimits limits() {
      maybe("limits");
      return super.limits();
    }
  }

  private static Router router(Throws broken) {
    return new Router(List.of(broken, StubBackend.of("healthy", Fidelity.F2, 10)));
  }

  /** Regression: each accessor's IllegalStateException failed the whole request. */
  @Test
  void aBackendWhoseAccessorThrows_isOneCandidateRefused_andAnotherServes() throws Exception {
    for (String which : new String[] {"costProfile", "fidelity", "limits"}) {
      Router router = router(new Throws(which, new IllegalStateException(which + " unreadable")));

      RouteDecision d = router.route(REQUEST);

      assertThat(d.chosen().name()).as(which).isEqualTo("healthy");
      RouteCandidate refused = d.candidates().getFirst();
      assertThat(refused.inadmissibility())
          .as(which)
          .hasValueSatisfying(
              why -> {
                assertThat(why.kind()).isEqualTo(Inadmissibility.Kind.NOT_PERMITTED);
                assertThat(why.detail()).isEqualTo("not permitted: it failed while being judged");
                assertThat(why.thrown())
                    .hasValue("java.lang.IllegalStateException: " + which + " unreadable");
              });
      assertThat(d.justification()).as(which).endsWith(", 1 not permitted");
    }
  }

  /**
   * Regression: the candidate's detail carried the throw as Java prints it ("not permitted: it
   * failed while being judged: java.lang.IllegalStateException: secret /path"), and so did the hint
   * beside a refusal; both reach a binding's clients (the HTTP binding's 422 and every served
   * route). The throw's words are the operator's alone now ({@link Inadmissibility#thrown()}).
   */
  @Test
  void aThrowsWords_areInNeitherTheDetailNorTheHint() {
    Router router =
        new Router(List.of(new Throws("costProfile", new IllegalStateException("secret /path"))));
    NoAdmissibleBackendException e =
        catchThrowableOfType(NoAdmissibleBackendException.class, () -> router.route(REQUEST));
    Inadmissibility why = e.candidates().getFirst().inadmissibility().orElseThrow();
    assertThat(why.detail()).isEqualTo("not permitted: it failed while being judged");
    assertThat(why.thrown()).hasValue("java.lang.IllegalStateException: secret /path");
    assertThat(e.hint())
        .isEqualTo(
            "broken is not admitted by any floor or ceiling (not permitted: it failed while being"
                + " judged)");
    assertThat(e.getMessage() + e.candidates()).doesNotContain("secret", "IllegalState");
  }

  /** Only a candidate refused {@code NOT_PERMITTED} records a throw: the kind its judging gives. */
  @Test
  void aThrowOnAnotherKind_isRefused() {
    assertThatThrownBy(
            () ->
                new Inadmissibility(
                    Inadmissibility.Kind.BELOW_FLOOR, "below floor", Optional.of("thrown")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("only a NOT_PERMITTED candidate records a throw, not BELOW_FLOOR");
  }

  /** An extra rule that throws (a rule reading a broken backend's weights) is the same. */
  @Test
  void aRuleThatThrowsForOneBackend_refusesThatCandidateOnly() throws Exception {
    Router router =
        new Router(
            List.of(
                StubBackend.of("broken", Fidelity.F3, 1),
                StubBackend.of("healthy", Fidelity.F2, 10)));

    RouteDecision d =
        router.route(
            REQUEST,
            b -> {
              if (b.name().equals("broken")) {
                throw new IllegalStateException("weights file unreadable");
              }
              return Optional.empty();
            });

    assertThat(d.chosen().name()).isEqualTo("healthy");
    assertThat(d.candidates().getFirst().inadmissibility().orElseThrow().thrown())
        .hasValue("java.lang.IllegalStateException: weights file unreadable");
  }

  /**
   * With the broken backend alone the request is refused as routing refuses, the throw recorded in
   * its candidate; an assertion in the backend's code is its failure too.
   */
  @Test
  void aBrokenBackendAlone_isNoAdmissibleBackend() {
    Router router = new Router(List.of(new Throws("fidelity", new AssertionError("rating broke"))));

    assertThatThrownBy(() -> router.route(REQUEST))
        .isInstanceOfSatisfying(
            NoAdmissibleBackendException.class,
            e ->
                assertThat(e.candidates().getFirst().inadmissibility().orElseThrow().thrown())
                    .hasValue("java.lang.AssertionError: rating broke"));
  }

  /**
   * The heap running out while a backend is weighed is the process failing: it passes, rather than
   * being recorded as that backend's refusal (and, with no backend left, answered as a request no
   * backend admits).
   */
  @Test
  void anOutOfMemoryError_passesAsItIs() {
    Router router = router(new Throws("costProfile", new OutOfMemoryError("Java heap space")));

    assertThatThrownBy(() -> router.route(REQUEST)).isInstanceOf(OutOfMemoryError.class);
  }

  /**
   * A throw whose words cannot be built refuses the candidate named by its class; the heap running
   * out while they are built is the process failing, and passes, as it does everywhere words are
   * read from code we do not own ({@code ThrowableWords}).
   */
  @Test
  void aThrowWhoseWordsThrow_isNamedByClass_andTheJvmFailingWhileReadingThemPasses() {
    RuntimeException unsayable =
        new IllegalStateException() {
          @Override
          public String toString() {
            throw new UnsupportedOperationException("no words");
          }
        };
    RouteDecision d;
    try {
      d = router(new Throws("costProfile", unsayable)).route(REQUEST);
    } catch (NoAdmissibleBackendException e) {
      throw new AssertionError(e);
    }
    assertThat(d.chosen().name()).isEqualTo("healthy");
    assertThat(d.candidates().getFirst().inadmissibility().orElseThrow().thrown())
        .hasValue(unsayable.getClass().getName());

    RuntimeException heapGoneWhileSaid =
        new IllegalStateException() {
          @Override
          public String toString() {
            throw new OutOfMemoryError("Java heap space");
          }
        };
    assertThatThrownBy(() -> router(new Throws("costProfile", heapGoneWhileSaid)).route(REQUEST))
        .isInstanceOf(OutOfMemoryError.class);
  }

  /** A stack overflow is the backend's own recursion: refused as any other throw of its code. */
  @Test
  void aStackOverflow_refusesTheCandidate() throws Exception {
    Router router = router(new Throws("limits", new StackOverflowError("limits recursed")));

    assertThat(router.route(REQUEST).chosen().name()).isEqualTo("healthy");
  }
}
