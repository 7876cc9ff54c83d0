package org.meshjava.router;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.meshjava.core.ServingEngine;

/**
 * The router's choice for one request: the chosen backend, every candidate weighed in registration
 * order, and the one-line justification the receipt carries as {@code route}.
 *
 * <p>Immutable; the engine it names is shared, and thread-safe as every engine must be.
 *
 * @param chosen the cheapest admissible backend
 * @param candidates every backend weighed, in registration order
 * @param justification one line, no newline
 */
public record RouteDecision(
    ServingEngine chosen, List<RouteCandidate> candidates, String justification) {

  /** Validates the record. */
  public RouteDecision {
    Objects.requireNonNull(chosen, "chosen");
    candidates = List.copyOf(candidates);
    Objects.requireNonNull(justification, "justification");
  }

  /** The chosen backend's candidate record. */
  public RouteCandidate chosenCandidate() {
    // A loop, not a stream: every serve asks this twice.
    for (RouteCandidate c : candidates) {
      if (c.backend().equals(chosen.name())) {
        return c;
      }
    }
    throw new NoSuchElementException("No value present");
  }
}
