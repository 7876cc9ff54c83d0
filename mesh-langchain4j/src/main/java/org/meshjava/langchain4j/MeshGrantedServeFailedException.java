package org.meshjava.langchain4j;

import dev.langchain4j.exception.NonRetriableException;
import org.meshjava.steward.ServeException;

/**
 * A granted chat failed in or after its engine run (the engine failed or contradicted itself). Its
 * grant was decided before the engine ran, so its presentation is spent and the failed work is
 * debited (§2.2); a retry would sign a fresh presentation and spend the grant again for each
 * attempt. A {@code NonRetriableException}, so LangChain4j's retries leave it alone, as the HTTP
 * binding tells its clients with {@code x-should-retry: false} on a granted 502 (SPEC.md 70,
 * "Automatic retries"); a caller who wants another attempt asks again itself. The same failure of
 * an ungranted chat is a {@link MeshServeFailedException}, which LangChain4j retries.
 *
 * @see MeshRefusal
 */
public final class MeshGrantedServeFailedException extends NonRetriableException
    implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshGrantedServeFailedException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
