package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.steward.Steward;

/**
 * The README's LangChain4j example, as a test an application can copy: a steward in-process, a
 * {@link ChatModel} over it, a sealed receipt with every answer, and a grant attached to one call.
 */
class MeshChatModelExampleTest {
  private final Steward steward =
      Steward.ephemeral().backend(ReferenceEngine.builder().name("reference").build()).build();

  @AfterEach
  void close() {
    steward.close();
  }

  @Test
  void chat_answersWithItsSealedReceiptInTheMetadata() throws Exception {
    ChatModel model = MeshChatModel.of(steward);

    ChatResponse answer =
        model.chat(
            ChatRequest.builder()
                .messages(SystemMessage.from("Be brief."), UserMessage.from("What did this cost?"))
                .maxOutputTokens(16)
                .build());

    MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
    assertThat(answer.aiMessage().text()).isNotEmpty();
    assertThat(receipt.backend()).isEqualTo("reference");
    assertThat(receipt.counters().tokensOut()).isEqualTo(16);
    assertThat(receipt.energy().uj()).isPositive();
    assertThat(answer.tokenUsage().outputTokenCount()).isEqualTo(16);
    // Anyone holding the envelope can check the steward's signature and the chain.
    assertThat(
            ReceiptChain.verifyFromGenesis(List.of(MeshChatResponseMetadata.of(answer).envelope()))
                .getFirst()
                .receipt())
        .isEqualTo(receipt);
  }

  @Test
  void chat_onAGrant_spendsTheGrantAndNamesItInTheReceipt() throws Exception {
    SigningKey me = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(
            me, steward.identity(), 50_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    ChatModel model = MeshChatModel.of(steward);

    ChatResponse answer =
        model.chat(
            ChatRequest.builder()
                .messages(UserMessage.from("Bill this to my grant."))
                .parameters(
                    MeshChatRequestParameters.builder()
                        .grant(GrantPresenter.of(me, grant))
                        .jouleCeilingUj(2_000_000)
                        .maxOutputTokens(8)
                        .build())
                .build());

    MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
    assertThat(receipt.grantId()).contains(grant.leaf().id().contentId());
  }

  @Test
  void streamingChat_handsOverTheTextAsItComes_thenTheReceipt() throws Exception {
    StreamingChatModel model = MeshStreamingChatModel.of(steward);
    StringBuilder streamed = new StringBuilder();
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();

    model.chat(
        ChatRequest.builder().messages(UserMessage.from("Stream it.")).maxOutputTokens(24).build(),
        new StreamingChatResponseHandler() {
          @Override
          public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
            streamed.append(partial.text());
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

    ChatResponse answer = done.get(30, TimeUnit.SECONDS);
    assertThat(streamed.toString()).isEqualTo(answer.aiMessage().text());
    assertThat(MeshChatResponseMetadata.of(answer).receipt().counters().tokensOut()).isEqualTo(24);
  }
}
