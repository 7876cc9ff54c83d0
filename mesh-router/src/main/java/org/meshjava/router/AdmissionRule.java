package org.meshjava.router;

import java.util.Optional;
import org.meshjava.core.ServingEngine;

/**
 * An extra condition a backend must meet for one request, beyond §4's floor and ceiling: for
 * example a grant's {@code ModelIn} caveat, under which a backend whose weights are not permitted,
 * or that names none, is inadmissible (§2).
 */
@FunctionalInterface
public interface AdmissionRule {
  /** Admits every backend. */
  AdmissionRule ALL = backend -> Optional.empty();

  /** Returns why {@code backend} is refused, or empty to admit it. */
  Optional<String> refuse(ServingEngine backend);
}
