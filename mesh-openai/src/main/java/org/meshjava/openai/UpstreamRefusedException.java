package org.meshjava.openai;

import java.util.Optional;
import org.meshjava.core.EngineException;

/**
 * An upstream that answered a forwarded request with an HTTP status other than 200. The message,
 * for the operator, carries the start of what the upstream said; {@link #shown()} is what may be
 * told to the API client, who reaches this server on a listener that may face the network: the
 * status only, since the upstream's own text names what the operator runs (its model names, its
 * hosts and paths, a key it echoes back).
 */
public final class UpstreamRefusedException extends EngineException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /**
   * @param status the upstream's HTTP status
   * @param said the start of the upstream's answer, on one line
   */
  UpstreamRefusedException(int status, String said) {
    super(statusText(status) + ": " + said);
    this.status = status;
  }

  private static String statusText(int status) {
    return "the upstream answered HTTP " + status;
  }

  /** The upstream's HTTP status. */
  public int status() {
    return status;
  }

  /**
   * Whether the upstream refused the request itself as malformed or too large (400, 413, 422),
   * rather than failing to serve it. Such a request fails the same way however often it is sent (an
   * odd message role, a prompt over the upstream's context), so it is the client's to change. An
   * upstream's 401, 403 or 404 is not: they say the operator's key or model name is wrong.
   */
  public boolean refusedTheRequest() {
    return status == 400 || status == 413 || status == 422;
  }

  /** What the client may read of the refusal: the status, and where its text went. */
  public String shown() {
    return statusText(status) + " (its own words go to the server's log, at most a line a minute)";
  }

  /** {@link #shown()}: the words the steward gives the client (SPEC.md 60.10). */
  @Override
  public Optional<String> clientWords() {
    return Optional.of(shown());
  }
}
