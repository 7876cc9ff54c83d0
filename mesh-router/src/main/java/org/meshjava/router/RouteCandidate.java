package org.meshjava.router;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.Fidelity;

/**
 * One backend the router weighed (§4): its fidelity, its estimate for the request, and why it was
 * refused, if it was.
 *
 * @param backend the backend's name
 * @param fidelity its advertised fidelity
 * @param estimateUj its estimate for the request, µJ
 * @param inadmissibility why it could not take the request; empty when admissible
 */
public record RouteCandidate(
    String backend, Fidelity fidelity, long estimateUj, Optional<Inadmissibility> inadmissibility) {

  /** Validates the record. */
  public RouteCandidate {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(fidelity, "fidelity");
    Objects.requireNonNull(inadmissibility, "inadmissibility");
  }

  /** Whether the backend could take the request. */
  public boolean admissible() {
    return inadmissibility.isEmpty();
  }

  @Override
  public String toString() {
    return backend
        + " "
        + fidelity
        + " est "
        + estimateUj
        + " uJ: "
        + inadmissibility.map(Inadmissibility::detail).orElse("admissible");
  }
}
