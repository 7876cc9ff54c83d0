package org.meshjava.openai;

import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * A request body the binding cannot serve as it stands: not JSON, a field of the wrong type, a
 * metadata value that is not a decimal, a granted request without its own joule ceiling. The server
 * answers it with HTTP 400 in OpenAI's error shape, naming {@link #param()}.
 */
public final class BindingException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the body. Stable; match on it. */
  public enum Reason {
    /** The body is not one JSON object (or holds a duplicate key, or trailing text). */
    NOT_JSON,
    /** The body is not UTF-8 (RFC 8259): another encoding, a byte-order mark, or bad bytes. */
    NOT_UTF8,
    /**
     * A prompt text or the {@code model} name holds a lone surrogate, which has no UTF-8 encoding
     * to hash (§3.1).
     */
    INVALID_UNICODE,
    /** A field is missing, or has the wrong JSON type or range. */
    INVALID_FIELD,
    /**
     * A {@code metadata} value for a mesh key is not a decimal string or a whole number in range.
     */
    INVALID_METADATA,
    /** A granted request names no {@code metadata.joule_ceiling_uj} of its own (§2.3). */
    MISSING_JOULE_CEILING,
    /** {@code jcp_presentation} is not the hex of a canonical presentation (§2.1). */
    MALFORMED_PRESENTATION,
    /**
     * The body asks for something the binding does not serve: a content part that is not text, or
     * an option no backend honours ({@code n} above 1, tools, stop sequences, a stored
     * conversation, …).
     */
    UNSUPPORTED,
    /**
     * A structured output ({@code response_format}, {@code text.format}) that cannot be asked as a
     * typed decision: not a {@code json_schema} of boolean and string-enum properties.
     */
    UNSUPPORTED_SCHEMA
  }

  private final transient @Nullable String param;
  private final String code;

  /** Creates the exception; {@code param} names the offending field, when there is one. */
  public BindingException(Reason reason, @Nullable String param, String detail) {
    this(reason, param, detail, reason.name().toLowerCase(java.util.Locale.ROOT));
  }

  /**
   * Creates the exception with the wire {@code code} OpenAI's API gives the same fault (such as
   * {@code integer_below_min_value} or {@code invalid_type} for an {@link Reason#INVALID_FIELD}),
   * so that a client written for that API reads the refusal as it would read OpenAI's.
   */
  public BindingException(Reason reason, @Nullable String param, String detail, String code) {
    super(reason, detail, detail);
    this.param = param;
    this.code = java.util.Objects.requireNonNull(code, "code");
  }

  /** Why. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /** The offending field as a dotted path, e.g. {@code metadata.joule_ceiling_uj}. */
  public Optional<String> param() {
    return Optional.ofNullable(param);
  }

  /**
   * The error {@code code} on the wire: the reason in lower case, or the code OpenAI's API gives
   * the same fault where it names one (a field of the wrong JSON type is {@code invalid_type}, one
   * out of its range {@code integer_below_min_value}, {@code decimal_above_max_value} and the like;
   * SPEC.md section 70).
   */
  public String code() {
    return code;
  }
}
