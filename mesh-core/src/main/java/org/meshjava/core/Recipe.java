package org.meshjava.core;

import java.util.List;
import java.util.Objects;
import org.meshjava.core.internal.OperatorText;
import org.meshjava.core.internal.WellFormedText;

/**
 * A composed model (§4): a base plus optional merges or adapters, applied in order. The receipt
 * carries {@link #name()}: the base, then {@code +adapter} for each adapter.
 *
 * @param base the base model's name
 * @param adapters merges or adapters applied on top, in order
 */
public record Recipe(String base, List<String> adapters) {

  /** Validates the names: non-empty, no {@code +}, no control characters, no unpaired surrogate. */
  public Recipe {
    check("base", base);
    adapters = List.copyOf(adapters);
    adapters.forEach(a -> check("adapter", a));
  }

  /** A recipe of a base model alone. */
  public static Recipe of(String base) {
    return new Recipe(base, List.of());
  }

  /** Returns a copy with {@code adapter} applied last. */
  public Recipe with(String adapter) {
    var list = new java.util.ArrayList<>(adapters);
    list.add(adapter);
    return new Recipe(base, list);
  }

  /** The recipe's name on the receipt: {@code base+adapter1+adapter2…}. */
  public String name() {
    return adapters.isEmpty() ? base : base + "+" + String.join("+", adapters);
  }

  private static void check(String what, String s) {
    Objects.requireNonNull(s, what);
    if (s.isEmpty() || s.contains("+") || s.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(
          "recipe "
              + what
              + " must be non-empty, without '+' or control characters: '"
              + OperatorText.named(s)
              + "'");
    }
    // The name rides in the receipt, whose encoder refuses a text with no UTF-8: found there, it
    // failed the serve after the work was done and debited, so it is refused here.
    if (WellFormedText.unpairedSurrogate(s) >= 0) {
      throw new IllegalArgumentException(
          "recipe " + what + " holds an unpaired surrogate, which has no UTF-8");
    }
  }

  @Override
  public String toString() {
    return name();
  }
}
