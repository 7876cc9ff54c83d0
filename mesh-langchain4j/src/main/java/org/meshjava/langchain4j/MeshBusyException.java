package org.meshjava.langchain4j;

import dev.langchain4j.exception.RateLimitException;
import org.meshjava.steward.ServeException;

/**
 * The routed backend already runs and queues as many serves as it declares; retry shortly. No grant
 * was decided and nothing was debited.
 *
 * @see MeshRefusal
 */
public final class MeshBusyException extends RateLimitException implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshBusyException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
