package org.meshjava.router;

import java.util.List;
import java.util.Objects;
import org.meshjava.core.Fidelity;

/**
 * Thrown when no backend can take a request (§4). Carries every candidate and why each was refused,
 * so the failure is as auditable as a success, and the request's bounds, so that {@link #hint()}
 * can say which of them to move.
 */
public final class NoAdmissibleBackendException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Not serialized (a candidate's {@code Optional} is not serializable); null once read back. */
  private final transient List<RouteCandidate> candidates;

  /**
   * Worked out when thrown and serialized with the message, so a refusal read back (sent between
   * processes, kept in a session) still says what to change.
   */
  private final String hint;

  /**
   * Creates the exception.
   *
   * @param candidates every backend weighed, each with its reason
   * @param reason the message
   * @param floor the request's fidelity floor
   * @param ceilingUj the request's joule ceiling, µJ
   */
  public NoAdmissibleBackendException(
      List<RouteCandidate> candidates, String reason, Fidelity floor, long ceilingUj) {
    super(reason);
    this.candidates = List.copyOf(candidates);
    this.hint =
        AdmissionHint.of(this.candidates, Objects.requireNonNull(floor, "floor"), ceilingUj);
  }

  /**
   * Every backend weighed, each with its reason; empty in an exception read back by Java
   * serialization, which does not carry them ({@link #hint()} still says what they showed).
   */
  public List<RouteCandidate> candidates() {
    return candidates == null ? List.of() : candidates;
  }

  /**
   * What floor or ceiling would have admitted which backend ({@link AdmissionHint}), for a front
   * end to show beside the message, which the conformance vectors fix.
   */
  public String hint() {
    return hint;
  }
}
