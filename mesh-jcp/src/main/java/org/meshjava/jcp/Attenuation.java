package org.meshjava.jcp;

import java.util.Optional;

/**
 * The attenuation rule: a child grants no more than its parent in any dimension. Used both when the
 * library issues a delegation (so a caller learns early) and when the gate decides (so a chain
 * built elsewhere is held to the same rule). Stateless.
 */
final class Attenuation {
  private Attenuation() {}

  /** Returns why {@code child} widens {@code parent}, or empty when it does not. */
  static Optional<String> violation(Grant parent, Grant child) {
    if (!parent.actions().containsAll(child.actions())) {
      return Optional.of("actions " + child.actions() + " are not within " + parent.actions());
    }
    if (!child.resources().isWithin(parent.resources())) {
      return Optional.of("resources are not within the parent's");
    }
    if (child.budgetUj() > parent.budgetUj()) {
      return Optional.of(
          "budget " + child.budgetUj() + " µJ exceeds the parent's " + parent.budgetUj() + " µJ");
    }
    if (child.notBefore().isBefore(parent.notBefore())) {
      return Optional.of(
          "not_before " + child.notBefore() + " is before the parent's " + parent.notBefore());
    }
    if (child.expiry().isAfter(parent.expiry())) {
      return Optional.of("expiry " + child.expiry() + " is after the parent's " + parent.expiry());
    }
    for (Caveat p : parent.caveats()) {
      boolean kept = child.caveats().stream().anyMatch(c -> c.narrows(p));
      if (!kept) {
        return Optional.of("parent caveat " + p.kind() + " is dropped or widened");
      }
    }
    return Optional.empty();
  }
}
