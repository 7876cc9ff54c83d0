package org.meshjava.router;

import java.util.Optional;
import org.meshjava.core.ServingEngine;

/**
 * An extra condition a backend must meet for one request, beyond §4's floor and ceiling: for
 * example a grant's {@code ModelIn} caveat, under which a backend whose weights are not permitted,
 * or that names none, is inadmissible (§2).
 *
 * <p>Called on the thread that routes; a rule shared by several requests is called from their
 * threads at once, so it must then be thread-safe (one that reads nothing mutable is).
 */
@FunctionalInterface
public interface AdmissionRule {
  /** Admits every backend. */
  AdmissionRule ALL = backend -> Optional.empty();

  /** Returns why {@code backend} is refused, or empty to admit it. */
  Optional<String> refuse(ServingEngine backend);
}
