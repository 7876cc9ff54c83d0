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
 * @param chosenCandidate the chosen backend's candidate record, one of {@code candidates}: held,
 *     not looked up by the engine's {@code name()}, which may answer otherwise than when it was
 *     weighed
 */
public record RouteDecision(
    ServingEngine chosen,
    List<RouteCandidate> candidates,
    String justification,
    RouteCandidate chosenCandidate) {

  /**
   * Validates the record.
   *
   * @throws IllegalArgumentException if {@code chosenCandidate} is not one of {@code candidates}
   */
  public RouteDecision {
    Objects.requireNonNull(chosen, "chosen");
    candidates = List.copyOf(candidates);
    Objects.requireNonNull(justification, "justification");
    Objects.requireNonNull(chosenCandidate, "chosenCandidate");
    if (!candidates.contains(chosenCandidate)) {
      throw new IllegalArgumentException("the chosen candidate is not among the candidates");
    }
  }

  /**
   * A decision whose chosen candidate is looked up among {@code candidates} by {@code chosen}'s
   * name.
   *
   * @throws NoSuchElementException if no candidate has that name
   */
  public RouteDecision(
      ServingEngine chosen, List<RouteCandidate> candidates, String justification) {
    this(chosen, candidates, justification, named(candidates, chosen.name()));
  }

  private static RouteCandidate named(List<RouteCandidate> candidates, String name) {
    for (RouteCandidate c : candidates) {
      if (c.backend().equals(name)) {
        return c;
      }
    }
    throw new NoSuchElementException("No value present");
  }
}
