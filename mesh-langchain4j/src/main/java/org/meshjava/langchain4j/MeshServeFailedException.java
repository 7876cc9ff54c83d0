package org.meshjava.langchain4j;

import dev.langchain4j.exception.InternalServerException;
import org.meshjava.steward.ServeException;

/**
 * The serve failed after routing: the engine of an ungranted chat failed or contradicted itself (a
 * granted chat's is a {@link MeshGrantedServeFailedException}), or the steward could not journal
 * the serve where a resend may still be served (§2.2; the other cases are a {@link
 * MeshNotRecordedException}). An {@code InternalServerException}, which LangChain4j retries.
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
