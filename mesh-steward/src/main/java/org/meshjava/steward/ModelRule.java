package org.meshjava.steward;

import java.util.Optional;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.router.AdmissionRule;
import org.meshjava.router.Router;

/**
 * The admission rule of a request that names a model: only backends of that name, or serving that
 * recipe, are admissible; every other candidate says why. A request that names none admits all. A
 * backend's name is the one it was registered under ({@link Router#name}), never its {@code name()}
 * asked again.
 */
final class ModelRule {
  private ModelRule() {}

  static AdmissionRule of(ServeRequest request, Router router) {
    if (request.model().isEmpty()) {
      return AdmissionRule.ALL;
    }
    String model = request.model().get();
    return backend ->
        names(backend, router.name(backend), model)
            ? Optional.empty()
            : Optional.of("not the model the request names (" + model + ")");
  }

  /**
   * Whether {@code model} names {@code backend}: its registered {@code name}, or the recipe it
   * serves. A backend whose {@code recipe()} throws (the engine's code) is named by its name only,
   * so that it cannot fail a request, or {@link Steward#serves}, that another backend answers.
   */
  static boolean names(ServingEngine backend, String name, String model) {
    if (name.equals(model)) {
      return true;
    }
    try {
      return backend.recipe().name().equals(model);
    } catch (RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      return false;
    }
  }
}
