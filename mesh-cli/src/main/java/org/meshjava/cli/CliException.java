package org.meshjava.cli;

/**
 * A failure the user can act on: a missing file, a bad flag value, a refused grant. The command
 * prints its message as one line after {@code mesh:} and exits 1; no stack trace.
 */
final class CliException extends Exception {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
