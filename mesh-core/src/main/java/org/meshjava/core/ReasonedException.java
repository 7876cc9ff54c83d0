package org.meshjava.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A checked failure that carries a stable reason to match on and a detail in words. Each subclass
 * has a reason enum of its own and narrows {@link #reason()} to it, so a caller that knows the type
 * matches on that enum, while one that handles failures of many kinds (a log line, a command's exit
 * words) reads the reason's name and the detail without knowing each type.
 *
 * <p>A generic class cannot extend {@link Throwable}, hence the reason held as {@code Enum<?>} and
 * the narrowing override in each subclass.
 */
public abstract class ReasonedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Enum<?> reason;
  private final String detail;

  /**
   * A failure for {@code reason}, whose message is {@code message}: the detail with whatever the
   * subclass puts before it (the reason, a position, a file). Its cause is left unset, so a caller
   * may still {@link #initCause} it, as it could before these failures shared this base.
   */
  protected ReasonedException(Enum<?> reason, String detail, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.detail = detail;
  }

  /**
   * A failure for {@code reason}, whose message is {@code message}, caused by {@code cause}; a null
   * cause is set as none, and {@link #initCause} then refuses to set one.
   */
  protected ReasonedException(
      Enum<?> reason, String detail, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.detail = detail;
  }

  /** Why: stable; match on it, never on the message. Subclasses narrow it to their own enum. */
  public Enum<?> reason() {
    return reason;
  }

  /** What went wrong, in words, without what the message puts before it. */
  public String detail() {
    return detail;
  }
}
