package org.meshjava.receipt.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which {@code CHECKPOINT_MISMATCH} a {@link LogException} is: a checkpoint the log's own key
 * signed but the log does not hold ({@code NOT_HELD}, which the HTTP layer answers as futile to
 * resend) or any other ({@code OTHER_CHECKPOINT}); no other reason carries one.
 */
class LogExceptionMismatchTest {
  @Test
  void aMismatchMadeWithTheReason_isAnotherCheckpoint() {
    LogException e = new LogException(LogException.Reason.CHECKPOINT_MISMATCH, "older");

    assertThat(e.mismatch()).contains(LogException.Mismatch.OTHER_CHECKPOINT);
    assertThat(e.getMessage()).isEqualTo("CHECKPOINT_MISMATCH: older");
  }

  @Test
  void aCheckpointNotHeld_isItsOwnMismatch() {
    LogException e = LogException.notHeld("size 9 is not held");

    assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH);
    assertThat(e.mismatch()).contains(LogException.Mismatch.NOT_HELD);
  }

  @Test
  void everyOtherReason_carriesNoMismatch() {
    for (LogException.Reason r : LogException.Reason.values()) {
      if (r != LogException.Reason.CHECKPOINT_MISMATCH) {
        assertThat(new LogException(r, "x").mismatch()).as(r.name()).isEmpty();
      }
    }
  }
}
