package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;

/**
 * A {@code NO_ADMISSIBLE_BACKEND} refusal's hint says what floor or ceiling would have admitted
 * which backend: the reason word alone (fixed by the conformance vectors) left a new user to work
 * that out from the route's candidates. The CLI's demo prints it, and the HTTP binding's 422 says
 * it in its message.
 */
class AdmissionHintTest {
  private static RouteCandidate refused(
      String name, Fidelity fidelity, long estimateUj, Inadmissibility.Kind kind) {
    return new RouteCandidate(
        name, fidelity, estimateUj, Optional.of(new Inadmissibility(kind, kind.name())));
  }

  @Test
  void belowTheFloor_namesTheFloor_andAnOverCeilingOneTheCeiling() {
    String hint =
        AdmissionHint.of(
            List.of(
                refused("small", Fidelity.F1, 500, Inadmissibility.Kind.BELOW_FLOOR),
                refused("big", Fidelity.F4, 40_000, Inadmissibility.Kind.OVER_CEILING)),
            Fidelity.F4,
            1_000);
    assertThat(hint)
        .isEqualTo(
            "a floor of F1 or lower would admit small;"
                + " a ceiling of 40000 uJ or more would admit big");
  }

  @Test
  void aBackendBelowTheFloorAndOverTheCeiling_namesBoth() {
    // The router records only the first rule failed (the floor); the ceiling must move too.
    String hint =
        AdmissionHint.of(
            List.of(refused("mid", Fidelity.F2, 4_600, Inadmissibility.Kind.BELOW_FLOOR)),
            Fidelity.F4,
            1_000);
    assertThat(hint)
        .isEqualTo("a floor of F2 or lower and a ceiling of 4600 uJ or more would admit mid");
  }

  @Test
  void aBackendNoBoundAdmits_isSaidSo() {
    String hint =
        AdmissionHint.of(
            List.of(refused("gated", Fidelity.F4, 10, Inadmissibility.Kind.NOT_PERMITTED)),
            Fidelity.F1,
            1_000);
    assertThat(hint).startsWith("gated is not admitted by any floor or ceiling");
  }

  @Test
  void aBackendOverALimit_isNamedOnce_withTheRulesDetailAlone() {
    String hint =
        AdmissionHint.of(
            List.of(
                new RouteCandidate(
                    "capped",
                    Fidelity.F2,
                    700,
                    Optional.of(
                        new Inadmissibility(
                            Inadmissibility.Kind.OVER_LIMIT,
                            "over limit: max_tokens 5000 > limit 4096")))),
            Fidelity.F1,
            1_000);
    // Not the candidate's whole line (its name again, its fidelity and estimate).
    assertThat(hint)
        .isEqualTo(
            "capped is not admitted by any floor or ceiling (over limit: max_tokens 5000 > limit"
                + " 4096)");
  }

  @Test
  void aBackendWhoseEstimateIsTheCeiling_isNotOverIt_soOnlyTheFloorMoves() {
    // The router admits an estimate equal to the ceiling; naming the ceiling would send the user
    // to raise a bound that is not in the way.
    String hint =
        AdmissionHint.of(
            List.of(refused("mid", Fidelity.F2, 1_000, Inadmissibility.Kind.BELOW_FLOOR)),
            Fidelity.F4,
            1_000);
    assertThat(hint).isEqualTo("a floor of F2 or lower would admit mid");
  }

  @Test
  void noCandidatesAtAll_saysNoBackendIsConfigured() {
    assertThat(AdmissionHint.of(List.of(), Fidelity.F1, 1_000))
        .isEqualTo("no backend is configured: add one (see README)");
  }
}
