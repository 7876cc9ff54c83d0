package org.meshjava.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * A LangChain4j {@link ChatModel} served by an in-process {@link Steward}: every answer is routed,
 * authorised, metered and sealed (§2), and its receipt rides in the response's metadata ({@link
 * MeshChatResponseMetadata}). A chat is asked as the OpenAI binding would serve the same messages
 * and settings ({@link org.meshjava.openai.ChatAsk}), so its request id is the one {@code POST
 * /v1/chat/completions} would have.
 *
 * <pre>{@code
 * ChatModel model = MeshChatModel.of(steward);
 * ChatResponse answer = model.chat(ChatRequest.builder().messages(UserMessage.from("Hi")).build());
 * MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
 * }</pre>
 *
 * <p>A grant rides on a call through {@link MeshChatRequestParameters.Builder#grant}; a refusal is
 * thrown as a {@link MeshRefusal}. The model does not own the steward: close the steward yourself.
 * Thread-safe: chats run concurrently, as the steward's serves do.
 */
public final class MeshChatModel extends StewardChatModel implements ChatModel {

  private MeshChatModel(Builder b) {
    super(b);
  }

  /** A model over {@code steward} with the default parameters. */
  public static MeshChatModel of(Steward steward) {
    return builder(steward).build();
  }

  /** Starts a model over {@code steward}. */
  public static Builder builder(Steward steward) {
    return new Builder(steward);
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    StewardChat.Asked asked = chat.ask(request);
    ServeResult result = chat.serve(asked, null);
    return StewardChat.response(asked, result);
  }

  /** Builds a {@link MeshChatModel}. */
  public static final class Builder extends StewardChatModel.Builder<Builder> {
    private Builder(Steward steward) {
      super(steward);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Builds the model. */
    public MeshChatModel build() {
      return new MeshChatModel(this);
    }
  }
}
