package org.meshjava.metrics;

import java.util.Locale;
import org.meshjava.steward.GateDenialException;
import org.meshjava.steward.ServeException;

/** How a refusal is labelled in meters and observations: its reason and JCP denial label. */
final class Refusals {
  /** The value of a tag that does not apply (a refused serve's backend, say). */
  static final String ABSENT = "none";

  private Refusals() {}

  /** The refusal's reason in lower case: {@code grant_refused}, {@code backend_busy}, ... */
  static String reason(ServeException refusal) {
    return refusal.reason().name().toLowerCase(Locale.ROOT);
  }

  /** The JCP denial label's wire name for a grant refusal, else {@value #ABSENT}. */
  static String denialLabel(ServeException refusal) {
    return switch (refusal) {
      case GateDenialException d -> d.label().wire();
      default -> ABSENT;
    };
  }
}
