package org.meshjava.fuzz;

import java.util.Optional;

/** The shared rule of every target here: only the decoder's documented typed failure may escape. */
final class Hostile {
  private Hostile() {}

  /** A body of work that may throw only its documented checked failure. */
  @FunctionalInterface
  interface Decode {
    void run() throws Exception;
  }

  /** A decoder that may throw only its documented checked failure. */
  @FunctionalInterface
  interface Read<T> {
    T run() throws Exception;
  }

  /**
   * Runs {@code decode}; its documented failures ({@code expected}) are the answer to bad input,
   * anything else (an unchecked exception, an error) escapes as the finding.
   */
  @SafeVarargs
  static void only(Decode decode, Class<? extends Exception>... expected) {
    read(
        () -> {
          decode.run();
          return Boolean.TRUE;
        },
        expected);
  }

  /**
   * Runs {@code read}: what it decoded (never null), or empty when it refused the input with one of
   * its documented failures ({@code expected}); anything else escapes as in {@link #only}.
   */
  @SafeVarargs
  static <T> Optional<T> read(Read<T> read, Class<? extends Exception>... expected) {
    try {
      return Optional.of(read.run());
    } catch (Exception e) {
      for (Class<? extends Exception> c : expected) {
        if (c.isInstance(e)) {
          return Optional.empty();
        }
      }
      throw new AssertionError("undocumented failure: " + e, e);
    }
  }
}
