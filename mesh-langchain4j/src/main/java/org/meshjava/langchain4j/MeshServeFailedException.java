package org.meshjava.langchain4j;

import dev.langchain4j.exception.InternalServerException;
import org.meshjava.steward.ServeException;

/**
 * The serve failed after routing: the engine failed or contradicted itself, or the steward could
 * not journal the serve (§2.2).
 *
 * @see MeshRefusal
 */
public final class MeshServeFailedException extends InternalServerException implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshServeFailedException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
