package org.meshjava.langchain4j;

import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.TokenSink;
import org.meshjava.openai.ChatAnswer;
import org.meshjava.openai.TextDeltas;
import org.meshjava.router.RouteDecision;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.steward.Streamer;

/**
 * A LangChain4j {@link StreamingChatModel} served by an in-process {@link Steward}: the handler
 * hears each piece of text as the engine produces its tokens, and then the whole response with the
 * sealed receipt in its metadata ({@link MeshChatResponseMetadata}), as {@link MeshChatModel}'s.
 *
 * <p>A chat the model cannot ask (unsupported content, an unknown model name) is thrown by {@code
 * chat} itself; everything after that, a steward's refusal ({@link MeshRefusal}) included, reaches
 * the handler's {@code onError}. Each chat is served on the builder's executor, by default a new
 * virtual thread.
 *
 * <p><b>Cancelling.</b> {@code context.streamingHandle().cancel()} in {@code onPartialResponse}
 * stops the engine cooperatively. No partial text follows, but the work done until then was
 * metered, debited and sealed, so the handler still hears {@code onCompleteResponse}, with exactly
 * the tokens produced and their receipt: a cancelled answer is paid for and provable like any
 * other. A handler whose {@code onPartialResponse} throws cancels the same way and then hears
 * {@code onError} with what it threw.
 *
 * <p>The model does not own the steward. Thread-safe.
 */
public final class MeshStreamingChatModel extends StewardChatModel implements StreamingChatModel {
  private final Executor executor;

  private MeshStreamingChatModel(Builder b) {
    super(b);
    this.executor = b.executor;
  }

  /** A model over {@code steward} with the default parameters. */
  public static MeshStreamingChatModel of(Steward steward) {
    return builder(steward).build();
  }

  /** Starts a model over {@code steward}. */
  public static Builder builder(Steward steward) {
    return new Builder(steward);
  }

  @Override
  public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
    StewardChat.Asked asked = chat.ask(request);
    Stream stream = new Stream(handler);
    executor.execute(() -> stream.run(chat, asked));
  }

  /**
   * One streamed chat: opens the sink once the steward has routed, hands the handler each new piece
   * of text, and is the handle that cancels it. The serving thread alone writes its fields;
   * cancelling may come from any thread.
   */
  private static final class Stream implements Streamer, StreamingHandle {
    private final StreamingChatResponseHandler handler;
    private volatile boolean cancelled;
    private @Nullable TextDeltas deltas;
    private @Nullable RuntimeException handlerFailure;

    Stream(StreamingChatResponseHandler handler) {
      this.handler = handler;
    }

    @Override
    public TokenSink open(RouteDecision route) {
      TextDeltas d = new TextDeltas(route.chosen().tokenizer());
      deltas = d;
      return d.sink(this::partial);
    }

    /** Hands over {@code text} unless cancelled; whether to go on. */
    private boolean partial(String text) {
      if (!text.isEmpty() && !cancelled) {
        try {
          handler.onPartialResponse(new PartialResponse(text), new PartialResponseContext(this));
        } catch (RuntimeException e) {
          handlerFailure = e;
          cancelled = true;
        }
      }
      return !cancelled;
    }

    void run(StewardChat chat, StewardChat.Asked asked) {
      ServeResult result;
      try {
        result = chat.serve(asked, this);
      } catch (RuntimeException e) {
        handler.onError(e);
        return;
      }
      TextDeltas d = deltas;
      if (d != null) {
        // The text held back until the output was whole, cut from the whole as the steward
        // decoded it before the seal: decoding it again here, after the receipt was sealed, could
        // fail the handler (or answer otherwise) for an answer already paid for.
        partial(d.finish(new ChatAnswer(asked.ask(), result).text()));
      }
      // Checked after that last piece too: a handler that throws on it hears onError, as one that
      // throws on any earlier piece does.
      RuntimeException failed = handlerFailure;
      if (failed != null) {
        handler.onError(failed);
        return;
      }
      handler.onCompleteResponse(StewardChat.response(asked, result));
    }

    @Override
    public void cancel() {
      cancelled = true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }
  }

  /** Builds a {@link MeshStreamingChatModel}. */
  public static final class Builder extends StewardChatModel.Builder<Builder> {
    private Executor executor =
        task -> Thread.ofVirtual().name("mesh-langchain4j-chat").start(task);

    private Builder(Steward steward) {
      super(steward);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Where each chat is served; default: a new virtual thread per chat. */
    public Builder executor(Executor v) {
      this.executor = Objects.requireNonNull(v, "executor");
      return this;
    }

    /** Builds the model. */
    public MeshStreamingChatModel build() {
      return new MeshStreamingChatModel(this);
    }
  }
}
