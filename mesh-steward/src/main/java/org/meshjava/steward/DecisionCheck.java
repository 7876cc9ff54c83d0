package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.router.AdmissionRule;

/**
 * The checks of a decision asked with typed questions (§3.6): before routing, that the questions
 * are the ones the request's shape counts; when routing, that the backend can answer them; after
 * the engine ran, that it answered exactly those questions, each over its own options.
 */
final class DecisionCheck {
  /** Admits only engines that answer typed questions. */
  static final AdmissionRule ANSWERS_QUESTIONS =
      backend ->
          backend instanceof DecisionEngine
              ? Optional.empty()
              : Optional.of("does not answer typed questions");

  /** Admits, for a request without questions, only engines that can serve the payload alone. */
  static final AdmissionRule SERVES_PAYLOAD_ALONE =
      backend ->
          backend.servesPayloadAlone()
              ? Optional.empty()
              : Optional.of("answers only typed questions");

  private DecisionCheck() {}

  static void questionsFit(ServeRequest request, List<DecisionQuestion> questions)
      throws ServeException {
    if (request.decision().isEmpty()) {
      throw mismatch("the request is a generation, but typed questions were given");
    }
    Optional<String> misfit = request.decision().get().misfit(questions);
    if (misfit.isPresent()) {
      throw mismatch(misfit.get());
    }
  }

  static void answersFit(
      RoutedBackend backend,
      ServeRequest request,
      List<DecisionQuestion> questions,
      ServeOutcome outcome,
      List<DecisionAnswer> answers)
      throws ServeException {
    if (!sameWork(request.decision().orElseThrow(), outcome)) {
      throw inconsistent(
          backend,
          "reported answering "
              + outcome.decision().map(Object::toString).orElse("no decision")
              + " in "
              + outcome.tokensIn()
              + " tokens for "
              + request.decision().orElseThrow());
    }
    if (answers.size() != questions.size()) {
      throw inconsistent(
          backend, "returned " + answers.size() + " answers to " + questions.size() + " questions");
    }
    for (int i = 0; i < answers.size(); i++) {
      if (!answers.get(i).fits(questions.get(i))) {
        throw inconsistent(
            backend,
            "answered question "
                + i
                + " with "
                + answers.get(i).size()
                + " probabilities for its "
                + questions.get(i).optionCount()
                + " options");
      }
    }
  }

  /**
   * Whether the engine reports the questions and options asked. Its {@code schema_tokens} is either
   * the request's, or its own count of how many of its {@code tokens_in} are schema (§3.6 counts
   * them among the input tokens, which on the receipt are the engine's: a request asked as text
   * counts the schema's bytes, which a tokenizer folds into fewer tokens). Its own count cannot
   * exceed its input.
   */
  private static boolean sameWork(DecisionShape asked, ServeOutcome outcome) {
    if (outcome.decision().isEmpty()) {
      return false;
    }
    DecisionShape told = outcome.decision().get();
    return told.questions() == asked.questions()
        && told.optionsScored() == asked.optionsScored()
        && (told.schemaTokens() == asked.schemaTokens()
            || told.schemaTokens() <= outcome.tokensIn());
  }

  private static ServeException mismatch(String detail) {
    return new ServeException(ServeException.Reason.QUESTIONS_MISMATCH, detail);
  }

  private static ServeException inconsistent(RoutedBackend backend, String what) {
    return new ServeException(ServeException.Reason.INCONSISTENT_OUTCOME, backend + " " + what);
  }
}
