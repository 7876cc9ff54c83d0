package org.meshjava.langchain4j;

import java.util.Optional;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GateDenialException;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.StewardClosedException;

/**
 * A steward's refusal of a chat, as the LangChain4j exception a caller of a chat model expects:
 * each implementation extends the LangChain4j exception of its kind (a busy backend is a {@code
 * RateLimitException}, and so on), and all carry the steward's {@link ServeException} as their
 * cause, so callers match on {@link #reason()} and {@link #label()}, never on message text. Nothing
 * was sealed and the receipt chain did not advance.
 *
 * <table>
 *   <caption>Which exception each reason becomes</caption>
 *   <tr><th>exception</th><th>LangChain4j type</th><th>reasons</th></tr>
 *   <tr><td>{@link MeshGrantRefusedException}</td><td>{@code NonRetriableException}</td>
 *       <td>NOT_ISSUER, GRANT_REFUSED, GRANTS_SUSPENDED, JOURNAL_NOT_DURABLE</td></tr>
 *   <tr><td>{@link MeshBusyException}</td><td>{@code RateLimitException}</td>
 *       <td>BACKEND_BUSY</td></tr>
 *   <tr><td>{@link MeshInadmissibleException}</td><td>{@code InvalidRequestException}</td>
 *       <td>NO_ADMISSIBLE_BACKEND, OVER_CONTEXT, OVER_CEILING, PROMPT_MISMATCH,
 *       QUESTIONS_MISMATCH</td></tr>
 *   <tr><td>{@link MeshServeFailedException}</td><td>{@code InternalServerException}</td>
 *       <td>ENGINE_FAILED, INCONSISTENT_OUTCOME, FIDELITY_OVERCLAIM, WEIGHTS_CHANGED of an
 *       ungranted chat, and NOT_RECORDED where a resend may be served</td></tr>
 *   <tr><td>{@link MeshGrantedServeFailedException}</td><td>{@code NonRetriableException}</td>
 *       <td>ENGINE_FAILED, INCONSISTENT_OUTCOME, FIDELITY_OVERCLAIM, WEIGHTS_CHANGED of a granted
 *       chat: its presentation is spent, and a retry would spend the grant again</td></tr>
 *   <tr><td>{@link MeshNotRecordedException}</td><td>{@code NonRetriableException}</td>
 *       <td>NOT_RECORDED where a resend cannot be served: the journal failed ({@link
 *       ServeException#journalFailed()}), or a granted chat was refused after its grant was
 *       decided (any but a {@link StewardClosedException})</td></tr>
 * </table>
 */
public sealed interface MeshRefusal
    permits MeshGrantRefusedException,
        MeshBusyException,
        MeshInadmissibleException,
        MeshServeFailedException,
        MeshGrantedServeFailedException,
        MeshNotRecordedException {

  /**
   * The steward's refusal: the cause each implementation is constructed with (a cause, once given
   * to a constructor, cannot be replaced).
   */
  default ServeException serveException() {
    return (ServeException) getCause();
  }

  /** The cause, as {@link Throwable#getCause()} gives it; every implementation is an exception. */
  Throwable getCause();

  /** The phase and rule that stopped the serve. */
  default ServeException.Reason reason() {
    return serveException().reason();
  }

  /** The JCP denial label, when a grant was refused (§2); empty otherwise. */
  default Optional<DenialLabel> label() {
    return switch (serveException()) {
      case GateDenialException d -> Optional.of(d.label());
      default -> Optional.empty();
    };
  }

  /**
   * The LangChain4j exception for {@code e}.
   *
   * @param granted whether the chat was asked on a presentation: a granted chat that failed, or was
   *     refused {@code NOT_RECORDED}, after its grant was decided is not to be resent at once
   */
  static RuntimeException of(ServeException e, boolean granted) {
    return switch (e.reason()) {
      case NOT_ISSUER, GRANT_REFUSED, GRANTS_SUSPENDED, JOURNAL_NOT_DURABLE ->
          new MeshGrantRefusedException(e);
      case BACKEND_BUSY -> new MeshBusyException(e);
      case NO_ADMISSIBLE_BACKEND, OVER_CONTEXT, OVER_CEILING, PROMPT_MISMATCH, QUESTIONS_MISMATCH ->
          new MeshInadmissibleException(e);
      // Whether a resend can be served is the steward's rule, as the HTTP binding applies it.
      case NOT_RECORDED ->
          e.resendFutile(granted)
              ? new MeshNotRecordedException(e)
              : new MeshServeFailedException(e);
      case ENGINE_FAILED, INCONSISTENT_OUTCOME, FIDELITY_OVERCLAIM, WEIGHTS_CHANGED ->
          e.resendFutile(granted)
              ? new MeshGrantedServeFailedException(e)
              : new MeshServeFailedException(e);
    };
  }
}
