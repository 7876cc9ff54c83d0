package org.meshjava.langchain4j;

import dev.langchain4j.exception.NonRetriableException;
import org.meshjava.steward.ServeException;

/**
 * The steward refused the chat's grant, or honours no grant at all (§2, §2.2): {@link #label()}
 * says which rule. Not worth retrying as it stands.
 *
 * @see MeshRefusal
 */
public final class MeshGrantRefusedException extends NonRetriableException implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshGrantRefusedException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
