package org.meshjava.steward.observe;

/** The four phases of a serve (§2), in the order the steward runs them. */
public enum ServePhase {
  /**
   * Choosing the backend (§4); then, for a serve on a grant, the checks of its presentation that
   * read no state, before the backend's slot is taken: its caller (§2.1) and its chain's
   * signatures, linkage, attenuation, caveat kinds and holder. A presentation its caller did not
   * sign, or whose chain is forged, broken, widened or held by another steward, is refused in this
   * phase.
   */
  ROUTE,
  /** Deciding the presented grant and journalling the decision; instant for an ungranted serve. */
  AUTHORISE,
  /** Running the engine inside a meter window, and debiting a grant (§2 phase 3, §3.3). */
  METER,
  /** Stamping, signing and journalling the receipt (§6). */
  SEAL
}
