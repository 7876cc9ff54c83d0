package org.meshjava.energy;

import java.util.Objects;

/**
 * A counter could not be read or set up. Internal: meters turn it into a {@link CounterStatus} and
 * a fallback, never into an exception a steward sees.
 */
final class CounterException extends Exception {
  private static final long serialVersionUID = 1L;

  private final CounterIssue issue;

  CounterException(CounterIssue issue, String detail) {
    super(detail);
    this.issue = Objects.requireNonNull(issue, "issue");
  }

  CounterException(CounterIssue issue, String detail, Throwable cause) {
    super(detail, cause);
    this.issue = Objects.requireNonNull(issue, "issue");
  }

  CounterIssue issue() {
    return issue;
  }

  /**
   * Why binding a native library failed: this module may not call native code ({@link
   * CounterIssue#NATIVE_ACCESS_DENIED}), or the library or one of its symbols is missing ({@link
   * CounterIssue#LIBRARY_MISSING}, the detail prefixed with {@code cannot}).
   */
  static CounterException ofBinding(RuntimeException e, String cannot) {
    return e instanceof IllegalCallerException denied
        ? new CounterException(
            CounterIssue.NATIVE_ACCESS_DENIED, MeterDiscovery.nativeAccessDenied(denied), e)
        : new CounterException(CounterIssue.LIBRARY_MISSING, cannot + ": " + e.getMessage(), e);
  }
}
