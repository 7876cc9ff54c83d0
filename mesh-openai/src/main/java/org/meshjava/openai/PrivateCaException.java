package org.meshjava.openai;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An upstream's file of trusted CA certificates ({@link
 * UpstreamEngine.Builder#trustedCertificates}) that cannot be used, refused when the engine is
 * built (at start) rather than at its first serve. {@link #reason()} says which way it failed; the
 * message names the file and what to do. Immutable.
 */
public final class PrivateCaException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Why the file cannot be used. */
  public enum Reason {
    /** No file at the path. */
    MISSING,
    /** The file exists but could not be read (permissions, a directory, an I/O error). */
    UNREADABLE,
    /** The file holds nothing but white space. */
    EMPTY,
    /** The file holds no PEM {@code CERTIFICATE} block, or one that is not an X.509 certificate. */
    NOT_PEM_CERTIFICATES
  }

  private final Reason reason;
  private final transient Path file;

  PrivateCaException(Reason reason, Path file, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.file = Objects.requireNonNull(file, "file");
  }

  /** Why the file was refused. */
  public Reason reason() {
    return reason;
  }

  /** The file refused, as it was given. */
  public Path file() {
    return file;
  }
}
