package org.meshjava.router;

import java.util.List;

/**
 * Thrown when no backend can take a request (§4). Carries every candidate and why each was refused,
 * so the failure is as auditable as a success.
 */
public final class NoAdmissibleBackendException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<RouteCandidate> candidates;

  /** Creates the exception. */
  public NoAdmissibleBackendException(List<RouteCandidate> candidates, String reason) {
    super(reason);
    this.candidates = List.copyOf(candidates);
  }

  /** Every backend weighed, each with its reason. */
  public List<RouteCandidate> candidates() {
    return candidates;
  }
}
