package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.internal.RetryUtils;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/** A chat run through LangChain4j's own retry loop, as its chat models run a provider's calls. */
final class RetryLoop {
  private RetryLoop() {}

  /** How the loop ended: how many times it called the chat, and what it threw at last. */
  record Ended(int calls, Throwable thrown) {}

  /** Runs {@code chat} in {@code RetryUtils.withRetry} with 3 attempts; it must end by throwing. */
  static Ended run(Callable<?> chat) {
    AtomicInteger calls = new AtomicInteger();
    Throwable thrown =
        catchThrowable(
            () ->
                RetryUtils.withRetry(
                    () -> {
                      calls.incrementAndGet();
                      return chat.call();
                    },
                    3));
    assertThat(thrown).as("the retry loop ended by throwing").isNotNull();
    return new Ended(calls.get(), thrown);
  }
}
