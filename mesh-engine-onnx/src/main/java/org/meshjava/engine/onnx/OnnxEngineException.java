package org.meshjava.engine.onnx;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.EngineException;

/**
 * Thrown when the ONNX decision engine cannot be built or cannot answer. Carries a {@link Reason};
 * nothing is sealed for a decision that throws it.
 */
public final class OnnxEngineException extends EngineException {
  private static final long serialVersionUID = 1L;

  /** Why. Stable; match on it. */
  public enum Reason {
    /** The model or its tokenizer could not be read or loaded. */
    MODEL_UNREADABLE,
    /** The configured temperature would make the probabilities a false claim of certainty. */
    INVALID_TEMPERATURE,
    /** The request is a generation; this engine emits no tokens. */
    NOT_A_DECISION,
    /** A decision request arrived without its typed questions. */
    QUESTIONS_REQUIRED,
    /** The questions do not fit the request's decision shape. */
    QUESTIONS_MISMATCH,
    /** The payload does not begin with the questions' schema, or schema_tokens disagrees. */
    SCHEMA_MISMATCH,
    /** A payload token is not in the model's vocabulary. */
    TOKEN_OUT_OF_VOCABULARY,
    /** An input the model would read is longer than its position table. */
    INPUT_TOO_LONG,
    /** ONNX Runtime failed during the forward pass. */
    INFERENCE_FAILED,
    /**
     * The process began to stop (a signal) before or while the engine was built: nothing was built,
     * and the failure, if any, was the stop's, not the model's.
     */
    STOPPING
  }

  private final Reason reason;

  /** Creates the exception. */
  public OnnxEngineException(Reason reason, String detail) {
    this(reason, detail, null);
  }

  /** Creates the exception with a cause. */
  public OnnxEngineException(Reason reason, String detail, @Nullable Throwable cause) {
    super(reason + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Why. */
  public Reason reason() {
    return reason;
  }

  /**
   * The message, for a request this engine cannot answer as it was asked (a generation, questions
   * missing or not fitting, a payload that does not begin with their schema, a token outside the
   * vocabulary, an input over the model's length): those words are counts and the request's own,
   * written for its client. Empty for the model's failures (unreadable, the forward pass), whose
   * words may name its files: those reach the operator's log alone (SPEC.md 60.10).
   */
  @Override
  public Optional<String> clientWords() {
    return switch (reason) {
      case NOT_A_DECISION,
          QUESTIONS_REQUIRED,
          QUESTIONS_MISMATCH,
          SCHEMA_MISMATCH,
          TOKEN_OUT_OF_VOCABULARY,
          INPUT_TOO_LONG ->
          Optional.ofNullable(getMessage());
      case MODEL_UNREADABLE, INVALID_TEMPERATURE, INFERENCE_FAILED, STOPPING -> Optional.empty();
    };
  }
}
