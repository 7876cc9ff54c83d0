package org.meshjava.langchain4j;

import dev.langchain4j.exception.NonRetriableException;
import org.meshjava.steward.ServeException;

/**
 * The steward could not journal the chat, and asking again at once cannot help (§2.2): its journal
 * failed, and takes no append until the steward is restarted on it, or the chat was granted and its
 * grant decided before the record failed, so the journal must be seen to before the grant is spent
 * again. A {@code NonRetriableException}, so LangChain4j's retries leave it alone, as the HTTP
 * binding tells its clients for the same refusals (SPEC.md 70, "Automatic retries"). A {@code
 * NOT_RECORDED} that a resend may get past (a steward closed before the chat was decided, a journal
 * closed with its steward under an ungranted chat) is a {@link MeshServeFailedException}.
 *
 * @see MeshRefusal
 */
public final class MeshNotRecordedException extends NonRetriableException implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /** Wraps the steward's refusal. */
  public MeshNotRecordedException(ServeException cause) {
    super(cause.getMessage(), cause);
  }
}
