package org.meshjava.steward;

import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * A {@link RevocationFile} could not be loaded. The message names the file and, but for {@link
 * Reason#UNREADABLE}, the line at fault ({@code FILE line N: …}); the revocations on the lines
 * before it were loaded and stay in force.
 */
public final class RevocationFileException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why the load stopped. Stable; match on it. */
  public enum Reason {
    /** The file cannot be read (missing, not readable, not UTF-8). */
    UNREADABLE,
    /** The line is not a revocation in hex (its cause, a {@code MalformedGrantException}). */
    NOT_A_REVOCATION,
    /**
     * The revocation does not verify (SPEC 30 §11): its cause, a {@code GrantRefusedException},
     * carries the denial label.
     */
    REFUSED,
    /** The steward could not record it: its cause, a {@link ServeException}, says why. */
    NOT_RECORDED
  }

  private final Reason reason;
  private final transient Path file;
  private final int line;

  RevocationFileException(Reason reason, Path file, int line, Exception cause) {
    super(message(reason, file, line, cause), cause);
    this.reason = reason;
    this.file = file;
    this.line = line;
  }

  /** {@code FILE cannot be read: …}, or {@code FILE line N: } and what is wrong with the line. */
  private static String message(Reason reason, Path file, int line, Exception cause) {
    if (reason == Reason.UNREADABLE) {
      return file + " cannot be read: " + cause;
    }
    String what =
        switch (reason) {
          case NOT_A_REVOCATION -> "not a revocation: ";
          case REFUSED -> "refused: ";
          case UNREADABLE, NOT_RECORDED -> "";
        };
    return file + " line " + line + ": " + what + cause.getMessage();
  }

  /** Why the load stopped. */
  public Reason reason() {
    return reason;
  }

  /** The file. */
  public Path file() {
    return file;
  }

  /** The number of the line at fault, from 1; empty when the file could not be read. */
  public OptionalInt line() {
    return line > 0 ? OptionalInt.of(line) : OptionalInt.empty();
  }
}
