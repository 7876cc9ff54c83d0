package org.meshjava.steward;

import java.util.Objects;
import org.meshjava.core.ServingEngine;
import org.meshjava.router.RouteDecision;

/**
 * The backend a serve was routed to: its engine, and the name it was registered under, which the
 * router read once when it was built ({@link RouteDecision#chosenCandidate}). Everything after
 * routing names the backend by this name: the receipt, the grant's records, and every refusal. The
 * engine's {@code name()} is its own code and may answer otherwise since, or throw, which would
 * turn a refusal into an exception past the serve.
 *
 * @param name the name it was registered and routed under
 * @param engine the engine that serves
 * @param heldFaults run last in each region of the engine's code ({@link EngineAnswer}): it throws
 *     any fault of a mapped read (its weights) that the engine's compiled code held back ({@code
 *     Steward.Builder.heldFaults})
 */
record RoutedBackend(String name, ServingEngine engine, Runnable heldFaults) {

  /** Validates the record. */
  RoutedBackend {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(heldFaults, "heldFaults");
  }

  /** The backend {@code route} chose. */
  static RoutedBackend of(RouteDecision route, Runnable heldFaults) {
    return new RoutedBackend(route.chosenCandidate().backend(), route.chosen(), heldFaults);
  }

  /** How a refusal names it: {@code backend <name>}. */
  @Override
  public String toString() {
    return "backend " + name;
  }
}
