package org.meshjava.journal.internal;

/**
 * The words a journal's message gives for the exception that failed it: the exception's message, or
 * its class's simple name when it has none. Many an I/O or driver exception carries no message
 * ({@code ClosedChannelException}, an {@code IOException} thrown bare by a device layer), and a
 * message built from it alone read "write to … failed: null", naming nothing an operator could act
 * on.
 */
public final class FailureWords {
  private FailureWords() {}

  /** {@code e}'s message, or its class's name when the message is null or blank. */
  public static String of(Throwable e) {
    String m = e.getMessage();
    if (m != null && !m.isBlank()) {
      return m;
    }
    // An anonymous class has no simple name.
    String simple = e.getClass().getSimpleName();
    return simple.isEmpty() ? e.getClass().getName() : simple;
  }
}
