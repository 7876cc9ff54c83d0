package org.meshjava.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.jcp.IssuanceException;
import org.meshjava.jcp.Presentation;
import org.meshjava.openai.ChatAnswer;
import org.meshjava.openai.ChatAsk;
import org.meshjava.openai.Prompt;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.steward.Streamer;

/**
 * What both chat models share: a LangChain4j request turned into the {@link ChatAsk} the HTTP
 * binding would serve for the same chat, served on the steward, and the result turned back into a
 * LangChain4j response carrying the receipt. Stateless apart from the steward; thread-safe.
 */
final class StewardChat {
  private final Steward steward;
  private final MeshChatRequestParameters defaults;

  StewardChat(Steward steward, ChatRequestParameters defaults) {
    this.steward = Objects.requireNonNull(steward, "steward");
    this.defaults = MeshChatRequestParameters.builder().overrideWith(defaults).build();
  }

  MeshChatRequestParameters defaults() {
    return defaults;
  }

  /** A chat as asked, with the parameters it is served under. */
  record Asked(ChatAsk ask, MeshChatRequestParameters parameters) {}

  /**
   * Derives the chat's request.
   *
   * @throws UnsupportedFeatureException for tools, stop sequences, JSON response formats and
   *     message content that is not text
   * @throws ModelNotFoundException if {@code modelName} names no backend or recipe
   * @throws InvalidRequestException for a setting the binding would refuse
   */
  Asked ask(ChatRequest request) {
    MeshChatRequestParameters p =
        MeshChatRequestParameters.builder()
            .overrideWith(defaults)
            .overrideWith(request.parameters())
            .build();
    refuseUnsupported(p);
    Prompt prompt;
    try {
      prompt = prompt(request.messages());
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(e.getMessage(), e);
    }
    ChatAsk.Builder b =
        ChatAsk.builder(prompt)
            .jouleCeilingUj(
                p.jouleCeilingUj().orElse(MeshChatRequestParameters.DEFAULT_JOULE_CEILING_UJ));
    p.fidelityFloor().ifPresent(b::fidelityFloor);
    Integer max = p.maxOutputTokens();
    if (max != null) {
      b.maxTokens(max);
    }
    try {
      b.model(p.modelName(), steward);
    } catch (IllegalArgumentException e) {
      throw new ModelNotFoundException(e.getMessage());
    }
    try {
      return new Asked(b.build(), p);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(e.getMessage(), e);
    }
  }

  /**
   * Serves the chat, streaming to {@code streamer} when given.
   *
   * @throws RuntimeException the {@link MeshRefusal} of a refused serve, or LangChain4j's {@code
   *     AuthenticationException} when the grant presenter cannot present for the request
   */
  ServeResult serve(Asked asked, @Nullable Streamer streamer) {
    Optional<GrantPresenter> grant = asked.parameters().grant();
    try {
      if (grant.isEmpty()) {
        return streamer == null
            ? steward.serve(asked.ask().request(), asked.ask().prompt())
            : steward.serve(asked.ask().request(), asked.ask().prompt(), streamer);
      }
      Presentation presentation = grant.get().present(asked.ask().request());
      return streamer == null
          ? steward.serve(asked.ask().request(), asked.ask().prompt(), presentation)
          : steward.serve(asked.ask().request(), asked.ask().prompt(), presentation, streamer);
    } catch (ServeException e) {
      throw MeshRefusal.of(e, grant.isPresent());
    } catch (IssuanceException e) {
      throw new AuthenticationException("cannot present the grant: " + e.getMessage(), e);
    }
  }

  /** The LangChain4j response of a served chat, with its receipt in the metadata. */
  static ChatResponse response(Asked asked, ServeResult result) {
    ChatAnswer answer = new ChatAnswer(asked.ask(), result);
    MeshChatResponseMetadata metadata =
        MeshChatResponseMetadata.builder()
            .id(result.receipt().requestId().hex())
            .modelName(result.receipt().backend())
            .tokenUsage(new TokenUsage(answer.tokensIn(), answer.tokensOut()))
            .finishReason(answer.cut() ? FinishReason.LENGTH : FinishReason.STOP)
            .sealed(result.sealed())
            .build();
    return ChatResponse.builder()
        .aiMessage(AiMessage.from(answer.text()))
        .metadata(metadata)
        .build();
  }

  private static void refuseUnsupported(ChatRequestParameters p) {
    if (p.toolSpecifications() != null && !p.toolSpecifications().isEmpty()) {
      throw new UnsupportedFeatureException("a steward serves no tools");
    }
    if (p.stopSequences() != null && !p.stopSequences().isEmpty()) {
      throw new UnsupportedFeatureException(
          "a steward serves no stop sequences: a mesh request bounds its output by max tokens");
    }
    ResponseFormat format = p.responseFormat();
    if (format != null && format.type() == ResponseFormatType.JSON) {
      throw new UnsupportedFeatureException("a steward serves text; no JSON response format");
    }
  }

  /** The binding's prompt of LangChain4j messages: each a role and its text. */
  private static Prompt prompt(List<ChatMessage> messages) {
    List<Prompt.Message> out = new ArrayList<>();
    for (ChatMessage m : messages) {
      out.add(
          switch (m) {
            case SystemMessage s -> new Prompt.Message("system", s.text());
            case UserMessage u -> new Prompt.Message("user", text(u));
            case AiMessage a -> {
              if (a.hasToolExecutionRequests()) {
                throw new UnsupportedFeatureException("a steward serves no tool calls");
              }
              yield new Prompt.Message("assistant", a.text() == null ? "" : a.text());
            }
            default ->
                throw new UnsupportedFeatureException(
                    "a steward serves system, user and AI text messages, not " + m.type());
          });
    }
    return new Prompt(out);
  }

  /**
   * A user message's text parts, joined without a separator as the binding joins them. A named
   * speaker is refused, as the binding refuses a message's {@code name} (SPEC.md 70): the prompt
   * served and vouched for by the receipt is each message's role and text alone, so the name would
   * be dropped without a word.
   */
  private static String text(UserMessage u) {
    if (u.name() != null) {
      throw new UnsupportedFeatureException(
          "a steward serves no speaker names: the user message's name '"
              + u.name()
              + "' is not part of the prompt served; put it in the text, or leave the name out");
    }
    StringBuilder text = new StringBuilder();
    for (Content c : u.contents()) {
      if (!(c instanceof TextContent t)) {
        throw new UnsupportedFeatureException(
            "a steward serves text; a user message holds " + c.type());
      }
      text.append(t.text());
    }
    return text.toString();
  }
}
