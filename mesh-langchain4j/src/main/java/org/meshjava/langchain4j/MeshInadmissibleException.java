package org.meshjava.langchain4j;

import dev.langchain4j.exception.InvalidRequestException;
import java.util.Optional;
import org.meshjava.router.NoAdmissibleBackendException;
import org.meshjava.steward.ServeException;

/**
 * No backend could serve the chat as asked (§4): none admissible (see {@code
 * serveException().candidates()} for each backend's reason, and {@link #hint()} for the floor or
 * ceiling that would have admitted which), or the prompt and output do not fit the routed backend's
 * context.
 *
 * @see MeshRefusal
 */
public final class MeshInadmissibleException extends InvalidRequestException
    implements MeshRefusal {
  private static final long serialVersionUID = 1L;

  /**
   * Wraps the steward's refusal. When no backend was admissible its message is the router's, then
   * ": " and the {@linkplain #hint() hint}, as the HTTP binding's 422 says it.
   */
  public MeshInadmissibleException(ServeException cause) {
    super(hintOf(cause).map(h -> cause.getMessage() + ": " + h).orElse(cause.getMessage()), cause);
  }

  /**
   * What floor or ceiling would have admitted which backend, when no backend was admissible ({@link
   * NoAdmissibleBackendException#hint()}); empty for any other refusal.
   */
  public Optional<String> hint() {
    return hintOf(serveException());
  }

  private static Optional<String> hintOf(ServeException e) {
    return e.getCause() instanceof NoAdmissibleBackendException n
        ? Optional.of(n.hint())
        : Optional.empty();
  }
}
