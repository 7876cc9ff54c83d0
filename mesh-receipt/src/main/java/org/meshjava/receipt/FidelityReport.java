package org.meshjava.receipt;

import java.util.Objects;
import org.meshjava.core.Fidelity;

/**
 * The advertised and delivered fidelity of a serve, carried together or not at all (§3.2.1). A
 * backend may never report more than it advertised, so such a pair cannot be built.
 *
 * @param advertised the rating the router admitted the backend on
 * @param delivered the level the backend says it served
 */
public record FidelityReport(Fidelity advertised, Fidelity delivered) {

  /** Refuses a delivered level above the advertised one. */
  public FidelityReport {
    Objects.requireNonNull(advertised, "advertised");
    Objects.requireNonNull(delivered, "delivered");
    if (delivered.compareTo(advertised) > 0) {
      throw new IllegalArgumentException(
          "delivered fidelity " + delivered + " exceeds advertised " + advertised + " (§3.2.1)");
    }
  }
}
