package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiResponsesChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;

/** The server driven by a real OpenAI client library (langchain4j's OpenAI models). */
class OpenAiClientLibraryTest {
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  private OpenAiChatModel.OpenAiChatModelBuilder chat() {
    return OpenAiChatModel.builder()
        .baseUrl(f.server.baseUri().toString())
        .apiKey("unused")
        .modelName("small")
        .maxTokens(6)
        .maxRetries(0)
        .timeout(Duration.ofSeconds(20));
  }

  @Test
  void langchain4j_plainChat_getsTheCompletionAndTokenCounts() {
    ChatResponse r =
        chat()
            .build()
            .chat(
                dev.langchain4j.model.chat.request.ChatRequest.builder()
                    .messages(
                        dev.langchain4j.data.message.UserMessage.from("Hello from langchain4j."))
                    .build());
    assertThat(r.aiMessage().text().split(" ")).hasSize(6);
    assertThat(r.tokenUsage().outputTokenCount()).isEqualTo(6);
    assertThat(r.finishReason()).isEqualTo(dev.langchain4j.model.output.FinishReason.LENGTH);
  }

  @Test
  void langchain4j_streamedChat_assemblesTheSameText() throws Exception {
    String whole = chat().build().chat("Stream via langchain4j.");
    OpenAiStreamingChatModel model =
        OpenAiStreamingChatModel.builder()
            .baseUrl(f.server.baseUri().toString())
            .apiKey("unused")
            .modelName("small")
            .maxTokens(6)
            .timeout(Duration.ofSeconds(20))
            .build();
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    StringBuilder partial = new StringBuilder();
    model.chat(
        "Stream via langchain4j.",
        new StreamingChatResponseHandler() {
          @Override
          public void onPartialResponse(String text) {
            partial.append(text);
          }

          @Override
          public void onCompleteResponse(ChatResponse response) {
            done.complete(response);
          }

          @Override
          public void onError(Throwable error) {
            done.completeExceptionally(error);
          }
        });
    ChatResponse r = done.get(20, TimeUnit.SECONDS);
    assertThat(partial.toString()).isEqualTo(whole);
    assertThat(r.aiMessage().text()).isEqualTo(whole);
    assertThat(r.tokenUsage().outputTokenCount()).isEqualTo(6);
  }

  @Test
  void langchain4j_responsesModel_getsTheText() {
    OpenAiResponsesChatModel model =
        OpenAiResponsesChatModel.builder()
            .baseUrl(f.server.baseUri().toString())
            .apiKey("unused")
            .modelName("small")
            .maxOutputTokens(3)
            .build();
    String text = model.chat("Responses via langchain4j.");
    assertThat(text.split(" ")).hasSize(3);
  }

  @Test
  void langchain4j_grantedChat_isServedWhenTheCallerDerivesTheRequestFromTheBody()
      throws Exception {
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller, f.steward.identity(), 5_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    Map<String, String> metadata = Map.of("fidelity_floor", "F1", "joule_ceiling_uj", "250000");
    // What the client library will send, as far as granted_serve_request reads it.
    ObjectNode expected = Fixture.chat("Granted via langchain4j.");
    expected.put("model", "small"); // the library names its model, and a named model is signed for
    expected.put("max_tokens", 6);
    metadata.forEach(((ObjectNode) expected.putObject("metadata"))::put);
    String presentation = Jcp.present(caller, chain, GrantedServeRequest.derive(expected)).toHex();
    OpenAiChatModel model =
        chat()
            .metadata(metadata)
            .customParameters(Map.of("jcp_presentation", presentation))
            .build();
    String text = model.chat("Granted via langchain4j.");
    assertThat(text.split(" ")).hasSize(6);
    assertThat(f.steward.spend().remainingUj(chain)).isLessThan(5_000_000);

    // A second call with the same presentation is refused, and the library sees an error.
    assertThatThrownBy(() -> model.chat("Granted via langchain4j."))
        .hasMessageContaining("presentation-spent");
  }
}
