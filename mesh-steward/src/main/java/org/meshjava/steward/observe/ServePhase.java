package org.meshjava.steward.observe;

/** The four phases of a serve (§2), in the order the steward runs them. */
public enum ServePhase {
  /** Choosing the backend (§4). */
  ROUTE,
  /** Deciding the presented grant and journalling the decision; instant for an ungranted serve. */
  AUTHORISE,
  /** Running the engine inside a meter window, and debiting a grant (§2 phase 3, §3.3). */
  METER,
  /** Stamping, signing and journalling the receipt (§6). */
  SEAL
}
