package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;

/**
 * What a decision engine may report having done (§3.6, {@link DecisionCheck#answersFit}): the
 * questions and options asked, and a {@code schema_tokens} that is the request's or its own count
 * within its input; anything else is {@code INCONSISTENT_OUTCOME}.
 */
class DecisionReportTest {
  private static final ServeRequest REQUEST = DecisionServeTest.request(0, 1_000_000);
  private static final DecisionShape ASKED = REQUEST.decision().orElseThrow();
  private static final List<DecisionAnswer> ANSWERS =
      List.of(
          DecisionAnswer.of(0.5, 0.5),
          DecisionAnswer.of(0.2, 0.3, 0.5),
          DecisionAnswer.of(0.9, 0.1));

  private static ServeOutcome reporting(DecisionShape told, long tokensIn) {
    return new ServeOutcome(tokensIn, 0, 0, 0, 0, 0, Optional.empty(), Optional.of(told));
  }

  private static void check(ServeOutcome outcome) throws ServeException {
    DecisionCheck.answersFit(
        BackendSlotsTest.routed(DecisionServeTest.engine()),
        REQUEST,
        DecisionServeTest.QUESTIONS,
        outcome,
        ANSWERS);
  }

  private static void assertInconsistent(ServeOutcome outcome) {
    ServeException e = catchThrowableOfType(ServeException.class, () -> check(outcome));
    assertThat(e).as("%s", outcome).isNotNull();
    assertThat(e.reason()).isEqualTo(ServeException.Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void theShapeAsked_isAccepted() {
    assertThatCode(() -> check(reporting(ASKED, 10))).doesNotThrowAnyException();
  }

  @Test
  void anotherQuestionOrOptionCount_isInconsistent() {
    assertInconsistent(
        reporting(new DecisionShape(ASKED.questions() + 1, ASKED.optionsScored(), 8), 10));
    assertInconsistent(
        reporting(new DecisionShape(ASKED.questions(), ASKED.optionsScored() + 1, 8), 10));
    assertInconsistent(new ServeOutcome(10, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
  }

  @Test
  void itsOwnSchemaCount_isAcceptedUpToItsInput_andNotPast() {
    DecisionShape ownCount = new DecisionShape(ASKED.questions(), ASKED.optionsScored(), 6);
    assertThat(ownCount.schemaTokens()).isNotEqualTo(ASKED.schemaTokens());
    assertThatCode(() -> check(reporting(ownCount, 6))).doesNotThrowAnyException();
    assertInconsistent(reporting(ownCount, 5));
  }
}
