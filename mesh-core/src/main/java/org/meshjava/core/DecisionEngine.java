package org.meshjava.core;

import java.util.List;

/**
 * A backend that answers typed decisions (§3.6) with a probability per allowed option, scoring the
 * schema in one pass rather than emitting tokens. It is still a {@link ServingEngine}: it is
 * routed, metered and sealed like any other, and the steward routes a request that carries
 * questions only to engines of this kind.
 *
 * <p>Same thread-safety contract as {@link ServingEngine}.
 */
public interface DecisionEngine extends ServingEngine {

  /**
   * The token payload for a decision asked as prompt text: by default the engine's {@linkplain
   * #tokenizer() tokenizer} over {@link DecisionPrompt#text()} (schema, then state). An engine that
   * lays its payload out otherwise (its own schema tokens, then the state's) overrides this; {@link
   * #decide} is then handed exactly what this returns.
   */
  default TokenSequence payload(DecisionPrompt prompt) {
    return tokenizer().encode(prompt.text().bytes());
  }

  /**
   * Answers {@code questions} for a decision request on the prompt payload (which carries the
   * questions' schema and the state under judgement).
   *
   * @param request a request whose {@link ServeRequest#decision()} the questions fit
   * @param prompt the token payload
   * @param questions the typed questions, in order
   * @return the outcome and one answer per question, each with one probability per option
   * @throws EngineException if it cannot answer; nothing is sealed
   */
  DecisionResult decide(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws EngineException;

  /**
   * Answers {@code questions} as {@link #decide(ServeRequest, TokenSequence, List)}, handed the
   * request with its canonical encoding and id, which a steward computes once per serve. The
   * default decides {@link IdentifiedRequest#request()} with that method; an engine that reads the
   * request id overrides this to read {@link IdentifiedRequest#id()} instead of hashing again, and
   * must answer exactly as the other form does.
   *
   * @throws EngineException if it cannot answer; nothing is sealed
   */
  default DecisionResult decide(
      IdentifiedRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws EngineException {
    return decide(request.request(), prompt, questions);
  }
}
