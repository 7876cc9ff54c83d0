package org.meshjava.spring.ai;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.openai.ChatAnswer;
import org.meshjava.openai.ChatAsk;
import org.meshjava.openai.Prompt;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.content.MediaContent;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A Spring AI {@link ChatModel} served by an in-process {@link Steward}: every answer is routed,
 * metered and sealed (§2), and the sealed receipt rides in the response metadata under {@value
 * #RECEIPT_KEY} (a {@link SealedReceipt}: the receipt and its signed envelope). A chat is asked as
 * the OpenAI binding would serve the same messages ({@link ChatAsk}), with the options' {@code
 * model} (a backend or recipe) and {@code maxTokens}; sampling options are the backend's own and
 * are ignored; stop sequences, tools (tool callbacks in the options, tool calls and responses in
 * the messages) and media (images, audio) are refused ({@link UnsupportedOperationException}), as
 * is a {@code model} the steward does not serve or a {@code maxTokens} below 1 ({@link
 * IllegalArgumentException}). Serves are ungranted; a refusal is a {@link
 * MeshChatRefusedException}. Streaming is not offered: Spring AI's default {@code stream} answers
 * {@link UnsupportedOperationException}; stream through {@code mesh-langchain4j} or the HTTP
 * binding instead.
 *
 * <p>Thread-safe. The model does not own the steward.
 */
public final class MeshSpringAiChatModel implements ChatModel {
  /** The response metadata key of the {@link SealedReceipt}. */
  public static final String RECEIPT_KEY = "mesh_receipt";

  private final Steward steward;
  private final long jouleCeilingUj;

  /**
   * A model over {@code steward}, asking each chat with {@code jouleCeilingUj} µJ at most.
   *
   * @throws IllegalArgumentException if {@code jouleCeilingUj} is negative
   */
  public MeshSpringAiChatModel(Steward steward, long jouleCeilingUj) {
    this.steward = Objects.requireNonNull(steward, "steward");
    if (jouleCeilingUj < 0) {
      // Refused here, once, rather than by every chat with the binding's words for a request field.
      throw new IllegalArgumentException("jouleCeilingUj must be non-negative: " + jouleCeilingUj);
    }
    this.jouleCeilingUj = jouleCeilingUj;
  }

  /** The sealed receipt of a response this model served. */
  public static SealedReceipt receipt(ChatResponse response) {
    SealedReceipt r = response.getMetadata().get(RECEIPT_KEY);
    if (r == null) {
      throw new IllegalArgumentException("the response was not served by a steward");
    }
    return r;
  }

  @Override
  public ChatResponse call(org.springframework.ai.chat.prompt.Prompt prompt) {
    ChatAsk.Builder ask = ChatAsk.builder(prompt(prompt.getInstructions()));
    ask.jouleCeilingUj(jouleCeilingUj);
    ChatOptions options = prompt.getOptions();
    if (options != null) {
      if (options instanceof ToolCallingChatOptions tools
          && tools.getToolCallbacks() != null
          && !tools.getToolCallbacks().isEmpty()) {
        // Ignored, the chat would be answered as if no tool existed, and the caller would wait for
        // a call that never comes.
        throw new UnsupportedOperationException(
            "a steward serves no tools: the options carry "
                + tools.getToolCallbacks().size()
                + " tool callback(s)");
      }
      List<String> stops = options.getStopSequences();
      if (stops != null && !stops.isEmpty()) {
        throw new UnsupportedOperationException(
            "a steward serves no stop sequences: a mesh request bounds its output by max tokens");
      }
      Integer max = options.getMaxTokens();
      if (max != null) {
        ask.maxTokens(max);
      }
      ask.model(options.getModel(), steward);
    }
    ChatAsk asked = ask.build();
    ServeResult result;
    try {
      result = steward.serve(asked.request(), asked.prompt());
    } catch (ServeException e) {
      throw new MeshChatRefusedException(e);
    }
    ChatAnswer answer = new ChatAnswer(asked, result);
    Generation generation =
        new Generation(
            new AssistantMessage(answer.text()),
            ChatGenerationMetadata.builder()
                .finishReason(answer.cut() ? "LENGTH" : "STOP")
                .build());
    ChatResponseMetadata metadata =
        ChatResponseMetadata.builder()
            .id(result.receipt().requestId().hex())
            .model(result.receipt().backend())
            .usage(new DefaultUsage(answer.tokensIn(), answer.tokensOut()))
            .keyValue(RECEIPT_KEY, result.sealed())
            .build();
    return new ChatResponse(List.of(generation), metadata);
  }

  /** The binding's prompt of Spring AI messages: system, user and assistant text. */
  private static Prompt prompt(List<Message> messages) {
    List<Prompt.Message> out = new ArrayList<>();
    for (Message m : messages) {
      String role =
          switch (m.getMessageType()) {
            case SYSTEM -> "system";
            case USER -> "user";
            case ASSISTANT -> "assistant";
            case TOOL ->
                throw new UnsupportedOperationException("a steward serves no tool responses");
          };
      if (m instanceof AssistantMessage a && a.hasToolCalls()) {
        throw new UnsupportedOperationException("a steward serves no tool calls");
      }
      if (m instanceof MediaContent c && !c.getMedia().isEmpty()) {
        // Served as its text alone, the answer (and its receipt) would be to another question.
        throw new UnsupportedOperationException(
            "a steward serves text; a "
                + role
                + " message holds "
                + c.getMedia().size()
                + " media");
      }
      out.add(new Prompt.Message(role, text(m.getText())));
    }
    return new Prompt(out);
  }

  private static String text(@Nullable String text) {
    return text == null ? "" : text;
  }
}
