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

  /** Validates the record. */
  public ChatAnswer {
    Objects.requireNonNull(ask, "ask");
    Objects.requireNonNull(result, "result");
  }

  /**
   * The served text, decoded with the serving engine's own tokenizer: as the steward decoded it
   * before the serve was sealed ({@link ServeResult#text()}), for a chat asked as text.
   */
  public String text() {
    return result
        .text()
        .orElseGet(() -> result.route().chosen().tokenizer().decode(result.tokens()));
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
