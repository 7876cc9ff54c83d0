package org.meshjava.openai;

/**
 * A throwable whose description and trace throw, as foreign code's may: logged with its trace, it
 * throws out of the logging. Its message is readable (Jackson reads it once, wrapping it as the
 * cause of its own exception); printing it, or a throwable it is the cause of, is not.
 */
final class UnprintableException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  UnprintableException() {
    super("unprintable");
  }

  @Override
  public String toString() {
    throw new IllegalStateException("toString");
  }

  @Override
  public StackTraceElement[] getStackTrace() {
    throw new IllegalStateException("getStackTrace");
  }
}
