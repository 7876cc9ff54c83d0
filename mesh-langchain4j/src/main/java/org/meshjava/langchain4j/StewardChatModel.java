package org.meshjava.langchain4j;

import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import java.util.List;
import java.util.Objects;
import org.meshjava.steward.Steward;

/**
 * What {@link MeshChatModel} and {@link MeshStreamingChatModel} share apart from how they answer:
 * the {@link StewardChat} over the steward, the default parameters, the listeners and the provider,
 * and the builder settings behind them. Thread-safe; immutable once built.
 */
abstract class StewardChatModel {
  final StewardChat chat;
  private final List<ChatModelListener> listeners;

  StewardChatModel(Builder<?> b) {
    this.chat = new StewardChat(b.steward, b.defaults);
    this.listeners = List.copyOf(b.listeners);
  }

  /** The parameters of every chat unless a call sets its own. */
  public MeshChatRequestParameters defaultRequestParameters() {
    return chat.defaults();
  }

  /** The LangChain4j listeners told of every request, response and error. */
  public List<ChatModelListener> listeners() {
    return listeners;
  }

  /** {@link ModelProvider#OTHER}: a steward is no provider LangChain4j names. */
  public ModelProvider provider() {
    return ModelProvider.OTHER;
  }

  /**
   * The settings both models' builders take.
   *
   * @param <B> the model's builder, returned by each setter
   */
  abstract static class Builder<B extends Builder<B>> {
    private final Steward steward;
    private ChatRequestParameters defaults = MeshChatRequestParameters.builder().build();
    private List<ChatModelListener> listeners = List.of();

    Builder(Steward steward) {
      this.steward = Objects.requireNonNull(steward, "steward");
    }

    /** This builder, as its own type. */
    abstract B self();

    /**
     * The parameters of every chat unless a call sets its own: a {@link MeshChatRequestParameters}
     * (a joule ceiling, a fidelity floor, a grant) or LangChain4j's common ones.
     */
    public B defaultRequestParameters(ChatRequestParameters v) {
      this.defaults = Objects.requireNonNull(v, "defaultRequestParameters");
      return self();
    }

    /** LangChain4j listeners told of every request, response and error. */
    public B listeners(List<ChatModelListener> v) {
      this.listeners = List.copyOf(v);
      return self();
    }
  }
}
