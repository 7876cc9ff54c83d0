package org.meshjava.spring.ai;

import java.util.Optional;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GateDenialException;
import org.meshjava.steward.ServeException;

/**
 * The steward refused a Spring AI chat, or could not complete it. Match on {@link #reason()} and
 * {@link #label()}, never on message text. Nothing was sealed and the receipt chain did not
 * advance.
 */
public final class MeshChatRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ServeException serveException;

  /** Wraps the steward's refusal. */
  public MeshChatRefusedException(ServeException cause) {
    super(cause.getMessage(), cause);
    this.serveException = cause;
  }

  /** The steward's refusal. */
  public ServeException serveException() {
    return serveException;
  }

  /** The phase and rule that stopped the serve. */
  public ServeException.Reason reason() {
    return serveException.reason();
  }

  /** The JCP denial label, when a grant was refused (§2); empty otherwise. */
  public Optional<DenialLabel> label() {
    return switch (serveException) {
      case GateDenialException d -> Optional.of(d.label());
      default -> Optional.empty();
    };
  }
}
