package org.meshjava.router;

import java.util.Objects;

/**
 * Why a backend could not take a request.
 *
 * @param kind the rule it failed
 * @param detail a readable one-line account with the figures compared
 */
public record Inadmissibility(Kind kind, String detail) {

  /** The rules a backend can fail. Stable; match on it. */
  public enum Kind {
    /** Its advertised fidelity is below the request's floor (§4). */
    BELOW_FLOOR,
    /** Its estimate exceeds the request's joule ceiling (§4). */
    OVER_CEILING,
    /**
     * The request is over what the backend takes ({@link org.meshjava.core.ServeLimits}): more
     * prompt or output tokens than the engine can serve or its operator allows, or a larger joule
     * ceiling than the operator lets a serve reserve there.
     */
    OVER_LIMIT,
    /** An extra admission rule refused it, such as a grant's {@code ModelIn} caveat (§2). */
    NOT_PERMITTED
  }

  /** Validates the record. */
  public Inadmissibility {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return detail;
  }
}
