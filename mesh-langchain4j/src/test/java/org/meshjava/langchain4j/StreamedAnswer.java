package org.meshjava.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A streamed answer for tests: each partial response goes to {@code onPartial}, and the stream's
 * end completes this future, with the response or with the error the handler heard.
 */
final class StreamedAnswer extends CompletableFuture<ChatResponse>
    implements StreamingChatResponseHandler {
  private final BiConsumer<PartialResponse, PartialResponseContext> onPartial;

  StreamedAnswer(BiConsumer<PartialResponse, PartialResponseContext> onPartial) {
    this.onPartial = onPartial;
  }

  @Override
  public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
    onPartial.accept(partial, context);
  }

  @Override
  public void onCompleteResponse(ChatResponse response) {
    complete(response);
  }

  @Override
  public void onError(Throwable error) {
    completeExceptionally(error);
  }
}
