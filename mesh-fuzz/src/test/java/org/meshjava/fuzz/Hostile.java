package org.meshjava.fuzz;

/** The shared rule of every target here: only the decoder's documented typed failure may escape. */
final class Hostile {
  private Hostile() {}

  /** A body of work that may throw only its documented checked failure. */
  @FunctionalInterface
  interface Decode {
    void run() throws Exception;
  }

  /**
   * Runs {@code decode}; its documented failures ({@code expected}) are the answer to bad input,
   * anything else (an unchecked exception, an error) escapes as the finding.
   */
  @SafeVarargs
  static void only(Decode decode, Class<? extends Exception>... expected) {
    try {
      decode.run();
    } catch (Exception e) {
      for (Class<? extends Exception> c : expected) {
        if (c.isInstance(e)) {
          return;
        }
      }
      throw new AssertionError("undocumented failure: " + e, e);
    }
  }
}
