package org.meshjava.langchain4j;

import dev.langchain4j.exception.InvalidRequestException;
import org.meshjava.steward.ServeException;

/**
 * No backend could serve the chat as asked (§4): none admissible (see {@code
 * serveException().candidates()} for each backend's reason), or the prompt and output do not fit
 * the routed backend's context.
 *
 * @see MeshRefusal
 */
public final class MeshInadmissibleException extends InvalidRequestException
    implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshInadmissibleException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
