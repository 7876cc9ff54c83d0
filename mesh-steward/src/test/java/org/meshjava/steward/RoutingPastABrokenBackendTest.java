package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.ServeRequest;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.router.Inadmissibility;

/**
 * A backend whose {@code weights()} or {@code recipe()} throws is asked while the request is being
 * routed, by the admission rules of a grant ({@code ModelIn}) and of a request that names a model:
 * it is one candidate refused, and the request goes to another backend (or, with none left, is
 * refused {@code NO_ADMISSIBLE_BACKEND}), never failed whole by another backend's fault.
 */
class RoutingPastABrokenBackendTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  private static EngineWeightsFailureTest.WeightsFail engine(String name) {
    return new EngineWeightsFailureTest.WeightsFail(
        ReferenceEngine.builder()
            .name(name)
            .costProfile(CostProfile.perToken(100))
            .workPerToken(1)
            .build());
  }

  /**
   * Regression: the grant's admission rule read the broken backend's weights raw, so every granted
   * serve failed with its IllegalStateException, though a healthy backend was there to serve it.
   */
  @Test
  void aGrantedServe_isRoutedPastABackendWhoseWeightsThrow() throws Exception {
    EngineWeightsFailureTest.WeightsFail broken = engine("broken");
    broken.failing = true;
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal()).backend(broken).backend(engine("healthy")).build()) {
      ServeRequest req = GrantFixture.request("routed past", 3, CEILING);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(r.sealed().receipt().backend()).isEqualTo("healthy");
      assertThat(r.route().justification()).contains("1 not permitted");
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET);
    }
  }

  /**
   * Regression: a request naming a model read every other backend's recipe raw, so it failed with
   * the broken backend's IllegalStateException, and so did {@link Steward#serves}.
   */
  @Test
  void aRequestNamingAModel_isRoutedPastABackendWhoseRecipeThrows() throws Exception {
    EngineWeightsFailureTest.WeightsFail broken = engine("broken");
    broken.recipeFailing = true;
    try (Steward s =
        f.bare(new DurableMemoryJournal()).backend(broken).backend(engine("healthy")).build()) {
      ServeRequest req = GrantFixture.request("named", 3, CEILING).withModel("healthy");
      ServeResult r = s.serve(req, GrantFixture.payload(req));
      assertThat(r.sealed().receipt().backend()).isEqualTo("healthy");
      // Asked by the OpenAI layer before it serves a named model.
      assertThat(s.serves("healthy")).isTrue();
    }
  }

  /**
   * With the broken backend alone, a granted serve is refused as routing refuses, nothing spent.
   * What the backend threw is the operator's: in its candidate's {@code thrown} and the steward's
   * log (at WARN at most once an hour a backend, JudgingThrowsTest), never in the reason a client
   * reads.
   */
  @Test
  void aBrokenBackendAlone_isRefusedAtRouting_andNothingIsDebited() throws Exception {
    EngineWeightsFailureTest.WeightsFail broken = engine("broken");
    broken.failing = true;
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(broken).build()) {
      ServeRequest req = GrantFixture.request("alone", 3, CEILING);
      String log =
          SnapshotterFailureWordsTest.logOf(
              () ->
                  assertThatThrownBy(
                          () -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
                      .isInstanceOfSatisfying(
                          ServeException.class,
                          e -> {
                            assertThat(e.reason())
                                .isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
                            Inadmissibility why =
                                e.candidates().getFirst().inadmissibility().orElseThrow();
                            assertThat(why.detail())
                                .isEqualTo("not permitted: it failed while being judged");
                            assertThat(why.thrown())
                                .hasValueSatisfying(
                                    t -> assertThat(t).contains("weights file unreadable"));
                          }));
      assertThat(log)
          .contains("WARN")
          .contains("backend broken failed while being judged, so it was passed over: ")
          .contains("weights file unreadable");
      // Granted too: the grant's ModelIn rule is what reads the weights that throw.
      ServeRequest again = GrantFixture.request("alone again", 3, CEILING);
      String later =
          SnapshotterFailureWordsTest.logOf(
              () ->
                  assertThatThrownBy(
                          () ->
                              s.serve(again, GrantFixture.payload(again), f.present(chain, again)))
                      .isInstanceOfSatisfying(
                          ServeException.class,
                          e ->
                              assertThat(e.reason())
                                  .isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND)));
      assertThat(later).as("a backend's later throws are at debug").doesNotContain("WARN");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
    }
  }
}
