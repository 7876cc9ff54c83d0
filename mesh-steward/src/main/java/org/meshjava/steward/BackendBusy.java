package org.meshjava.steward;

/**
 * What a serve does when its routed backend already runs as many serves as it may ({@link
 * org.meshjava.core.ServingEngine#maxConcurrentServes()}). Either way nothing is authorised before
 * the serve has its slot, so no grant is reserved for work that waits.
 */
public enum BackendBusy {
  /** Wait for a slot: the default for a steward embedded as a library, whose callers queue. */
  WAIT,
  /**
   * Refuse at once with {@link ServeException.Reason#OVERLOADED}: for a server, whose client
   * should back off (HTTP 429 with {@code Retry-After}) rather than hold a connection open.
   */
  REFUSE
}
