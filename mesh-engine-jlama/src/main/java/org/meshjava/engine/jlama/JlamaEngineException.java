package org.meshjava.engine.jlama;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.EngineException;
import org.meshjava.core.weights.WeightsDigestException;

/**
 * Thrown when the Jlama engine cannot be built or cannot serve. Carries a {@link Reason} and, for a
 * directory the weights digest refused, that refusal's own reason.
 */
public final class JlamaEngineException extends EngineException {
  private static final long serialVersionUID = 1L;

  /** Why. Stable; match on it. */
  public enum Reason {
    /** The directory is not a model directory this engine can address and load (§3.6 layout). */
    UNKNOWN_LAYOUT,
    /** The configuration names a model family this engine does not run. */
    UNSUPPORTED_MODEL,
    /** The files are present but Jlama could not load them. */
    MODEL_UNREADABLE,
    /** The sampling settings are out of range. */
    INVALID_SAMPLING,
    /** The request is a typed decision; this engine generates. */
    NOT_A_GENERATION,
    /** The prompt payload is empty. */
    EMPTY_PROMPT,
    /** A payload token is not in the model's vocabulary. */
    TOKEN_OUT_OF_VOCABULARY,
    /** The prompt and max_tokens together exceed the model's context. */
    CONTEXT_EXCEEDED,
    /** The forward pass failed. */
    INFERENCE_FAILED
  }

  private final Reason reason;

  /** Creates the exception. */
  public JlamaEngineException(Reason reason, String detail) {
    this(reason, detail, null);
  }

  /** Creates the exception with a cause. */
  public JlamaEngineException(Reason reason, String detail, @Nullable Throwable cause) {
    super(reason + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Why. */
  public Reason reason() {
    return reason;
  }

  /**
   * The message, for a request this engine cannot serve as it was asked (a decision, an empty
   * prompt, a token outside the vocabulary, over the context): those words are counts and the
   * request's own, written for its client. Empty for the model's failures (unreadable, the forward
   * pass), whose words may name its files: those reach the operator's log alone (SPEC.md 60.10).
   */
  @Override
  public Optional<String> clientWords() {
    return switch (reason) {
      case NOT_A_GENERATION, EMPTY_PROMPT, TOKEN_OUT_OF_VOCABULARY, CONTEXT_EXCEEDED ->
          Optional.ofNullable(getMessage());
      case UNKNOWN_LAYOUT,
          UNSUPPORTED_MODEL,
          MODEL_UNREADABLE,
          INVALID_SAMPLING,
          INFERENCE_FAILED ->
          Optional.empty();
    };
  }

  /** The weights digest's reason, when the layout was refused by it. */
  public Optional<WeightsDigestException.Reason> layoutReason() {
    return getCause() instanceof WeightsDigestException w
        ? Optional.of(w.reason())
        : Optional.empty();
  }
}
