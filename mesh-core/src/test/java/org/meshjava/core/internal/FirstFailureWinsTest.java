package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FirstFailureWinsTest {

  @Test
  void nothingFailedBefore_theLaterFailureIsReported() {
    IllegalStateException later = new IllegalStateException("later");

    assertThat(FirstFailureWins.keep(null, later)).isSameAs(later);
    assertThat(later.getSuppressed()).isEmpty();
  }

  @Test
  void aFirstFailure_isReported_withEachLaterOneSuppressedOntoItInOrder() {
    IllegalStateException first = new IllegalStateException("first");
    OutOfMemoryError second = new OutOfMemoryError("second");
    IllegalArgumentException third = new IllegalArgumentException("third");

    Throwable kept = FirstFailureWins.keep(FirstFailureWins.keep(first, second), third);

    assertThat(kept).isSameAs(first);
    assertThat(first.getSuppressed()).containsExactly(second, third);
  }

  /**
   * The same instance thrown by two steps (one rethrowing what an earlier one threw) is reported
   * once: suppressing it on itself would throw {@code IllegalArgumentException} in place of both.
   */
  @Test
  void theSameFailureThrownAgain_isNotSuppressedOnItself() {
    IllegalStateException first = new IllegalStateException("first");

    assertThat(FirstFailureWins.keep(first, first)).isSameAs(first);
    assertThat(first.getSuppressed()).isEmpty();
  }
}
