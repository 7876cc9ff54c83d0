package org.meshjava.openai;

import java.util.Objects;
import org.meshjava.steward.ServeResult;

/**
 * What a steward served for a {@link ChatAsk}, read as the framework adapters (LangChain4j, Spring
 * AI) report a chat, so that they report it alike: the text in the serving engine's own tokenizer,
 * whether the request's token ceiling cut it, and the token counts as the frameworks' usage types
 * take them. The receipt, with the request id and backend it names, is the result's.
 *
 * @param ask the chat as asked
 * @param result what the steward served for it
 */
public record ChatAnswer(ChatAsk ask, ServeResult result) {

  /**
   * Validates the record.
   *
   * @throws IllegalArgumentException if {@code result} carries no text the steward decoded before
   *     the seal ({@link ServeResult#text()}): it was not served for the ask's prompt text (a
   *     payload the caller tokenized, a decision), and decoding its tokens here would run the
   *     tokenizer after the serve was sealed and paid for
   */
  public ChatAnswer {
    Objects.requireNonNull(ask, "ask");
    Objects.requireNonNull(result, "result");
    if (result.text().isEmpty()) {
      throw new IllegalArgumentException(
          "the result carries no text decoded before its seal: it is not a serve of the ask's"
              + " prompt text (Steward.serve(ask.request(), ask.prompt()))");
    }
  }

  /**
   * The served text, decoded with the serving engine's own tokenizer: as the steward decoded it
   * before the serve was sealed ({@link ServeResult#text()}). Never decoded here.
   */
  public String text() {
    return result.text().orElseThrow();
  }

  /**
   * Whether the output reached the request's token ceiling: a {@code length} finish, not a stop.
   */
  public boolean cut() {
    return result.outcome().tokensOut() >= ask.request().maxTokens();
  }

  /**
   * The prompt tokens counted.
   *
   * @throws ArithmeticException beyond an {@code int}, which the frameworks' usage types hold
   */
  public int tokensIn() {
    return Math.toIntExact(result.outcome().tokensIn());
  }

  /**
   * The output tokens counted.
   *
   * @throws ArithmeticException beyond an {@code int}, which the frameworks' usage types hold
   */
  public int tokensOut() {
    return Math.toIntExact(result.outcome().tokensOut());
  }
}
