package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;

/** Cheapest-sufficient routing (§4). */
class RouterTest {
  private static final ContentId PROMPT = ContentId.ofBytes(new byte[] {1});

  /** 10 prompt tokens, 20 max tokens: a generation costs 30 × uj_per_token. */
  private static ServeRequest generation(Fidelity floor, long ceiling) {
    return ServeRequest.generation(PROMPT, 10, new ServeBounds(20, floor, ceiling));
  }

  private static ServeRequest decision(Fidelity floor, long ceiling) {
    return ServeRequest.decision(
        PROMPT, 10, new ServeBounds(20, floor, ceiling), new DecisionShape(2, 6, 4));
  }

  @Test
  void estimate_ofAGeneration_isPerTokenTimesPromptPlusMaxTokens() throws Exception {
    Router router =
        new Router(List.of(new StubBackend("a", Fidelity.F2, new CostProfile(7, 1000))));

    RouteCandidate c = router.route(generation(Fidelity.F0, Long.MAX_VALUE)).candidates().get(0);

    assertThat(c.estimateUj()).isEqualTo(7 * (10 + 20));
  }

  @Test
  void estimate_ofADecision_excludesMaxTokensAndAddsPerOptionCost() throws Exception {
    Router router =
        new Router(
            List.of(
                new StubBackend("a", Fidelity.F2, new CostProfile(7, 1000)),
                new StubBackend("b", Fidelity.F2, CostProfile.perToken(7))));

    List<RouteCandidate> c = router.route(decision(Fidelity.F0, Long.MAX_VALUE)).candidates();

    assertThat(c.get(0).estimateUj()).isEqualTo(7 * 10 + 1000 * 6);
    assertThat(c.get(1).estimateUj()).as("no per-option cost: token-only").isEqualTo(7 * 10);
  }

  @Test
  void route_admitsAtExactlyTheFloorAndExactlyTheCeiling() throws Exception {
    Router router = new Router(List.of(StubBackend.of("a", Fidelity.F2, 10)));

    RouteDecision d = router.route(generation(Fidelity.F2, 300));

    assertThat(d.chosen().name()).isEqualTo("a");
    assertThat(d.chosenCandidate().admissible()).isTrue();
  }

  @Test
  void route_whenOneMicrojouleOverTheCeiling_refusesAsOverCeiling() {
    Router router = new Router(List.of(StubBackend.of("a", Fidelity.F2, 10)));

    NoAdmissibleBackendException e =
        catchThrowableOfType(
            NoAdmissibleBackendException.class, () -> router.route(generation(Fidelity.F2, 299)));

    assertThat(e.candidates())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.admissible()).isFalse();
              assertThat(c.estimateUj()).isEqualTo(300);
              assertThat(c.inadmissibility().orElseThrow().kind())
                  .isEqualTo(Inadmissibility.Kind.OVER_CEILING);
            });
  }

  @Test
  void route_whenOneLevelBelowTheFloor_refusesAsBelowFloor() {
    Router router = new Router(List.of(StubBackend.of("a", Fidelity.F1, 10)));

    NoAdmissibleBackendException e =
        catchThrowableOfType(
            NoAdmissibleBackendException.class,
            () -> router.route(generation(Fidelity.F2, 10_000)));

    assertThat(e.candidates().get(0).inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.BELOW_FLOOR);
  }

  @Test
  void route_choosesTheCheapestAdmissible_notTheFirstNorTheBestFidelity() throws Exception {
    Router router =
        new Router(
            List.of(
                StubBackend.of("frontier", Fidelity.F4, 50),
                StubBackend.of("mid", Fidelity.F3, 20),
                StubBackend.of("small", Fidelity.F2, 5),
                StubBackend.of("tiny", Fidelity.F1, 1)));

    RouteDecision d = router.route(generation(Fidelity.F2, 100_000));

    assertThat(d.chosen().name()).isEqualTo("small");
  }

  @Test
  void route_cheapestChoice_holdsOverRandomTables() throws Exception {
    long seed = 4_2026L;
    Random random = new Random(seed);
    for (int round = 0; round < 300; round++) {
      int n = 1 + random.nextInt(8);
      List<ServingEngine> backends = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        backends.add(
            StubBackend.of("b" + i, Fidelity.of(random.nextInt(5)), random.nextInt(1, 40)));
      }
      ServeRequest request = generation(Fidelity.of(random.nextInt(5)), random.nextLong(0, 1200));
      ServingEngine expected = null;
      for (ServingEngine b : backends) {
        long est = b.costProfile().ujPerToken() * 30;
        boolean ok = b.fidelity().meets(request.fidelityFloor()) && est <= request.jouleCeilingUj();
        if (ok && (expected == null || est < expected.costProfile().ujPerToken() * 30)) {
          expected = b;
        }
      }
      Router router = new Router(backends);
      if (expected == null) {
        assertThat(
                catchThrowableOfType(
                    NoAdmissibleBackendException.class, () -> router.route(request)))
            .as("seed %d round %d", seed, round)
            .isNotNull();
      } else {
        assertThat(router.route(request).chosen().name())
            .as("seed %d round %d", seed, round)
            .isEqualTo(expected.name());
      }
    }
  }

  @Test
  void route_onATie_choosesTheEarlierRegistration() throws Exception {
    StubBackend first = StubBackend.of("first", Fidelity.F2, 5);
    StubBackend second = StubBackend.of("second", Fidelity.F3, 5);
    StubBackend dearer = StubBackend.of("dearer", Fidelity.F2, 6);

    assertThat(
            new Router(List.of(dearer, first, second))
                .route(generation(Fidelity.F1, 10_000))
                .chosen())
        .isSameAs(first);
    assertThat(
            new Router(List.of(second, dearer, first))
                .route(generation(Fidelity.F1, 10_000))
                .chosen())
        .isSameAs(second);
  }

  @Test
  void route_recordsEveryBackendInRegistrationOrder_withFidelityEstimateAndReason()
      throws Exception {
    AdmissionRule onlyNotBanned =
        b -> b.name().equals("banned") ? Optional.of("model not in grant") : Optional.empty();
    Router router =
        new Router(
            List.of(
                StubBackend.of("weak", Fidelity.F0, 1),
                StubBackend.of("costly", Fidelity.F4, 1000),
                StubBackend.of("banned", Fidelity.F3, 2),
                StubBackend.of("good", Fidelity.F2, 3)));

    RouteDecision d = router.route(generation(Fidelity.F1, 1000), onlyNotBanned);

    List<RouteCandidate> c = d.candidates();
    assertThat(c)
        .extracting(RouteCandidate::backend)
        .containsExactly("weak", "costly", "banned", "good");
    assertThat(c)
        .extracting(RouteCandidate::fidelity)
        .containsExactly(Fidelity.F0, Fidelity.F4, Fidelity.F3, Fidelity.F2);
    assertThat(c).extracting(RouteCandidate::estimateUj).containsExactly(30L, 30_000L, 60L, 90L);
    assertThat(c).extracting(RouteCandidate::admissible).containsExactly(false, false, false, true);
    assertThat(c.get(0).inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.BELOW_FLOOR);
    assertThat(c.get(1).inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.OVER_CEILING);
    assertThat(c.get(2).inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.NOT_PERMITTED);
    assertThat(c.get(2).inadmissibility().orElseThrow().detail()).contains("model not in grant");
    assertThat(c.get(3).inadmissibility()).isEmpty();
    assertThat(d.chosen().name()).isEqualTo("good");
    assertThat(d.chosenCandidate()).isSameAs(c.get(3));
  }

  @Test
  void route_whenBothBelowFloorAndOverCeiling_recordsBelowFloor() {
    Router router = new Router(List.of(StubBackend.of("a", Fidelity.F0, 100)));

    NoAdmissibleBackendException e =
        catchThrowableOfType(
            NoAdmissibleBackendException.class, () -> router.route(generation(Fidelity.F3, 1)));

    assertThat(e.candidates().get(0).inadmissibility().orElseThrow().kind())
        .isEqualTo(Inadmissibility.Kind.BELOW_FLOOR);
  }

  /**
   * Regression: SPEC.md wrote the multi-backend clause as "dearer or tied later" while the router
   * wrote "other admissible not cheaper"; {@code route} is signed, so the bytes are pinned here and
   * in {@code conformance/v1/route}.
   */
  @Test
  void route_justification_ofAMultiBackendRoute_isExactlyTheTextSpecMdGives() throws Exception {
    AdmissionRule refuseBarred =
        b -> b.name().equals("barred") ? Optional.of("no") : Optional.empty();
    Router router =
        new Router(
            List.of(
                StubBackend.of("dearer", Fidelity.F3, 7),
                StubBackend.of("cheap", Fidelity.F2, 5),
                StubBackend.of("tied", Fidelity.F2, 5),
                StubBackend.of("weak", Fidelity.F0, 1),
                StubBackend.of("frontier", Fidelity.F4, 100),
                StubBackend.of("barred", Fidelity.F4, 1)));

    RouteDecision d = router.route(generation(Fidelity.F1, 1000), refuseBarred);

    assertThat(d.justification())
        .isEqualTo(
            "cheapest admissible of 6: cheap F2>=F1, est 150 uJ <= ceiling 1000 uJ,"
                + " 2 other admissible not cheaper, 1 below floor, 1 over ceiling, 1 not permitted");
  }

  @Test
  void route_justification_ofASingleBackend_hasNoClauses() throws Exception {
    RouteDecision d =
        new Router(List.of(StubBackend.of("only", Fidelity.F2, 10)))
            .route(generation(Fidelity.F2, 300));

    assertThat(d.justification())
        .isEqualTo("cheapest admissible of 1: only F2>=F2, est 300 uJ <= ceiling 300 uJ");
  }

  @Test
  void route_justification_isOneLineNamingTheChosenBackend() throws Exception {
    AdmissionRule multiLine =
        b -> b.name().equals("x") ? Optional.of("line one\nline two\r") : Optional.empty();
    Router router =
        new Router(
            List.of(
                StubBackend.of("x", Fidelity.F3, 1),
                StubBackend.of("chosen-one", Fidelity.F3, 2),
                StubBackend.of("y", Fidelity.F3, 3)));

    RouteDecision d = router.route(generation(Fidelity.F1, 1000), multiLine);

    assertThat(d.justification()).doesNotContain("\n").doesNotContain("\r").contains("chosen-one");
    assertThat(d.candidates().get(0).inadmissibility().orElseThrow().detail())
        .doesNotContain("\n")
        .doesNotContain("\r");
  }

  @Test
  void route_whenNoneAdmissible_throwsWithEveryCandidateAndItsReason() {
    Router router =
        new Router(
            List.of(
                StubBackend.of("weak", Fidelity.F0, 1),
                StubBackend.of("costly", Fidelity.F4, 1000),
                StubBackend.of("banned", Fidelity.F4, 1)));

    NoAdmissibleBackendException e =
        catchThrowableOfType(
            NoAdmissibleBackendException.class,
            () ->
                router.route(
                    generation(Fidelity.F2, 1000),
                    b -> b.name().equals("banned") ? Optional.of("no") : Optional.empty()));

    assertThat(e.candidates())
        .extracting(RouteCandidate::backend)
        .containsExactly("weak", "costly", "banned");
    assertThat(e.candidates())
        .extracting(c -> c.inadmissibility().orElseThrow().kind())
        .containsExactly(
            Inadmissibility.Kind.BELOW_FLOOR,
            Inadmissibility.Kind.OVER_CEILING,
            Inadmissibility.Kind.NOT_PERMITTED);
    assertThat(e.getMessage()).doesNotContain("\n");
    // SPEC.md 20 pins the failure message: the counts, floor and ceiling, then each refusal.
    assertThat(e.getMessage())
        .isEqualTo(
            "no admissible backend of 3 for floor F2 and ceiling 1000 uJ,"
                + " 1 below floor, 1 over ceiling, 1 not permitted");
  }

  @Test
  void route_whenAnEstimateWouldOverflow_saturatesAndRefusesRatherThanWrapping() {
    Router router = new Router(List.of(StubBackend.of("huge", Fidelity.F4, Long.MAX_VALUE / 2)));

    NoAdmissibleBackendException e =
        catchThrowableOfType(
            NoAdmissibleBackendException.class,
            () -> router.route(generation(Fidelity.F0, Long.MAX_VALUE - 1)));

    assertThat(e.candidates().get(0).estimateUj()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void router_withTwoBackendsOfOneName_isRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new Router(
                    List.of(
                        StubBackend.of("same", Fidelity.F1, 1),
                        StubBackend.of("same", Fidelity.F2, 2))));
  }

  @Test
  void router_withABackendNameThatWouldBreakTheOneLineRoute_isRefused() {
    // Regression: such a name was registered, then made the justification multi-line, and the
    // receipt refused it only at seal time, after the engine had already run.
    for (String name : List.of("two\nlines", "carriage\rreturn", "tab\there", "")) {
      assertThatIllegalArgumentException()
          .as("name %s", name)
          .isThrownBy(() -> new Router(List.of(StubBackend.of(name, Fidelity.F1, 1))));
    }
  }

  @Test
  void router_withNoBackend_isRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> new Router(List.of()));
  }

  /** A backend whose operator cap the request exceeds is inadmissible (§4, SPEC.md 20). */
  @Test
  void route_overAnOperatorCap_refusesThatBackendAsOverLimit_andChoosesTheNext() throws Exception {
    Router router =
        new Router(
            List.of(
                StubBackend.of("capped", Fidelity.F3, 1), StubBackend.of("free", Fidelity.F3, 2)),
            Map.of("capped", ServeLimits.NONE.withMaxOutputTokens(19)));

    RouteDecision d = router.route(generation(Fidelity.F1, 1000));

    assertThat(d.chosen().name()).isEqualTo("free");
    Inadmissibility why = d.candidates().get(0).inadmissibility().orElseThrow();
    assertThat(why.kind()).isEqualTo(Inadmissibility.Kind.OVER_LIMIT);
    assertThat(why.detail()).isEqualTo("over limit: max_tokens 20 > limit 19");
    assertThat(d.justification())
        .isEqualTo(
            "cheapest admissible of 2: free F3>=F1, est 60 uJ <= ceiling 1000 uJ, 1 over limit");
    assertThat(router.limits(router.backends().get(0)).maxOutputTokens()).isEqualTo(19);
    assertThat(router.limits(router.backends().get(1))).isEqualTo(ServeLimits.NONE);
  }

  @Test
  void backends_areTheRegisteredOnesInRegistrationOrder() {
    StubBackend b = StubBackend.of("b", Fidelity.F1, 1);
    StubBackend a = StubBackend.of("a", Fidelity.F1, 1);

    assertThat(new Router(List.of(b, a)).backends()).containsExactly(b, a);
  }

  @Test
  void router_withACapForNoBackend_isRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new Router(
                    List.of(StubBackend.of("real", Fidelity.F1, 1)),
                    Map.of("ghost", ServeLimits.NONE)));
  }
}
