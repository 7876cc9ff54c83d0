package org.meshjava.steward.observe;

/** The four phases of a serve (§2), in the order the steward runs them. */
public enum ServePhase {
  /**
   * Choosing the backend (§4); then, for a serve on a grant, checking its caller (§2.1), before the
   * backend's slot is taken, so a presentation its caller did not sign is refused in this phase.
   */
  ROUTE,
  /** Deciding the presented grant and journalling the decision; instant for an ungranted serve. */
  AUTHORISE,
  /** Running the engine inside a meter window, and debiting a grant (§2 phase 3, §3.3). */
  METER,
  /** Stamping, signing and journalling the receipt (§6). */
  SEAL
}
