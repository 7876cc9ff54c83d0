package org.meshjava.router;

import java.util.Objects;
import java.util.Optional;

/**
 * Why a backend could not take a request.
 *
 * <p>Two audiences read it. {@code detail} is the candidate's reason as §4 asks for it, for anyone
 * who reads the route: a binding's clients read it in a refusal's candidates and in every served
 * reply's route, whichever backend they were served by. {@code thrown} is for the operator and the
 * embedder alone: where asking the backend threw while it was judged, what it threw as Java prints
 * it (its class and message), which is that backend's code and may name what the operator runs (a
 * path, a host); its {@code detail} says only that it failed while being judged. The steward logs
 * {@code thrown}; no binding shows it to a client.
 *
 * @param kind the rule it failed
 * @param detail a readable one-line account with the figures compared, never a throw's words
 * @param thrown where asking the backend threw while it was judged, the throw as Java prints it, on
 *     one line; empty for a rule the backend failed
 */
public record Inadmissibility(Kind kind, String detail, Optional<String> thrown) {

  /** The reason of a candidate whose judging threw: its words are in {@link #thrown()} alone. */
  static final String FAILED_WHILE_JUDGED = "not permitted: it failed while being judged";

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
    /**
     * An extra admission rule refused it, such as a grant's {@code ModelIn} caveat (§2), or asking
     * the backend something while it was judged threw ({@link #thrown()}).
     */
    NOT_PERMITTED
  }

  /**
   * Validates the record.
   *
   * @throws IllegalArgumentException if {@code thrown} is present for a kind other than {@link
   *     Kind#NOT_PERMITTED}, the kind a backend whose judging threw is refused with
   */
  public Inadmissibility {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(thrown, "thrown");
    if (thrown.isPresent() && kind != Kind.NOT_PERMITTED) {
      throw new IllegalArgumentException(
          "only a NOT_PERMITTED candidate records a throw, not " + kind);
    }
  }

  /** A backend refused by a rule: nothing it threw. */
  public Inadmissibility(Kind kind, String detail) {
    this(kind, detail, Optional.empty());
  }

  /**
   * A backend whose judging threw {@code thrown} (as Java prints it, on one line): refused {@link
   * Kind#NOT_PERMITTED}, its detail saying only that it failed while being judged.
   */
  static Inadmissibility failedWhileJudged(String thrown) {
    return new Inadmissibility(Kind.NOT_PERMITTED, FAILED_WHILE_JUDGED, Optional.of(thrown));
  }

  /** The detail alone: what any reader of the route may read. */
  @Override
  public String toString() {
    return detail;
  }
}
