package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * The one rule both bindings read for whether a refused serve may be resent at once ({@link
 * ServeException#resendFutile}): the HTTP binding's {@code x-should-retry: false} and the
 * LangChain4j binding's non-retriable exceptions.
 */
class ServeExceptionResendFutileTest {

  private static ServeException of(ServeException.Reason reason) {
    return new ServeException(reason, "test");
  }

  @Test
  void aFailureAfterTheEngineRan_isFutileOnlyWhenGranted() {
    for (ServeException.Reason r :
        new ServeException.Reason[] {
          ServeException.Reason.ENGINE_FAILED,
          ServeException.Reason.INCONSISTENT_OUTCOME,
          ServeException.Reason.FIDELITY_OVERCLAIM,
          ServeException.Reason.WEIGHTS_CHANGED
        }) {
      assertThat(of(r).resendFutile(true)).as(r + " granted").isTrue();
      assertThat(of(r).resendFutile(false)).as(r + " ungranted").isFalse();
    }
  }

  @Test
  void suspendedGrantsAndAJournalNotDurable_areFutileEitherWay() {
    for (ServeException.Reason r :
        new ServeException.Reason[] {
          ServeException.Reason.GRANTS_SUSPENDED, ServeException.Reason.JOURNAL_NOT_DURABLE
        }) {
      assertThat(of(r).resendFutile(false)).as(r.toString()).isTrue();
    }
  }

  @Test
  void notRecorded_isFutileWhenGrantedOrTheJournalFailed_butNotForAClosedSteward() {
    ServeException notRecorded = of(ServeException.Reason.NOT_RECORDED);
    assertThat(notRecorded.resendFutile(true)).isTrue();
    assertThat(notRecorded.resendFutile(false)).isFalse();

    ServeException journalFailed =
        new ServeException(
            ServeException.Reason.NOT_RECORDED,
            "test",
            new JournalException(JournalException.Reason.IO, "disk gone", null));
    assertThat(journalFailed.resendFutile(false)).isTrue();
    ServeException journalClosed =
        new ServeException(
            ServeException.Reason.NOT_RECORDED,
            "test",
            new JournalException(JournalException.Reason.CLOSED, "closed", null));
    assertThat(journalClosed.resendFutile(false)).isFalse();

    assertThat(new StewardClosedException().resendFutile(true)).isFalse();
  }

  @Test
  void aRefusalBeforeAnyWork_isNeverFutile() {
    for (ServeException.Reason r :
        new ServeException.Reason[] {
          ServeException.Reason.PROMPT_MISMATCH,
          ServeException.Reason.QUESTIONS_MISMATCH,
          ServeException.Reason.NO_ADMISSIBLE_BACKEND,
          ServeException.Reason.BACKEND_BUSY,
          ServeException.Reason.OVER_CONTEXT,
          ServeException.Reason.OVER_CEILING,
          ServeException.Reason.NOT_ISSUER,
          ServeException.Reason.GRANT_REFUSED
        }) {
      assertThat(of(r).resendFutile(true)).as(r.toString()).isFalse();
    }
  }
}
