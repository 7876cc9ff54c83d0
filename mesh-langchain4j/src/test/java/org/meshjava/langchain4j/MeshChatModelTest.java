package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;

/** The adapters' rules: request derivation, parameters, refusals, streaming and cancelling. */
class MeshChatModelTest {
  private final Steward steward =
      Steward.ephemeral()
          .backend(ReferenceEngine.builder().name("small").fidelity(Fidelity.F2).build())
          .build();

  @AfterEach
  void close() {
    steward.close();
  }

  private static ChatRequest.Builder ask(String text) {
    return ChatRequest.builder().messages(UserMessage.from(text));
  }

  @Test
  void chat_isServedAsTheEquivalentChatCompletionsBody_sameRequestId() throws Exception {
    MeshChatModel model =
        MeshChatModel.builder(steward)
            .defaultRequestParameters(
                MeshChatRequestParameters.builder()
                    .jouleCeilingUj(3_000_000)
                    .fidelityFloor(Fidelity.F1)
                    .build())
            .build();

    ChatResponse answer =
        model.chat(
            ChatRequest.builder()
                .messages(
                    SystemMessage.from("sys"),
                    UserMessage.from("héllo"),
                    AiMessage.from("earlier"),
                    UserMessage.from(List.of(TextContent.from("a"), TextContent.from("b"))))
                .modelName("small")
                .maxOutputTokens(5)
                .build());

    String body =
        """
        {"model": "small",
         "messages": [{"role": "system", "content": "sys"},
                      {"role": "user", "content": "héllo"},
                      {"role": "assistant", "content": "earlier"},
                      {"role": "user", "content": [{"type": "text", "text": "a"},
                                                   {"type": "text", "text": "b"}]}],
         "max_completion_tokens": 5,
         "metadata": {"joule_ceiling_uj": "3000000", "fidelity_floor": "F1"}}
        """;
    ServeRequest overHttp = GrantedServeRequest.derive(new ObjectMapper().readTree(body));
    MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
    assertThat(receipt.requestId()).isEqualTo(overHttp.id());
    assertThat(answer.id()).isEqualTo(overHttp.id().hex());
    assertThat(answer.modelName()).isEqualTo("small");
    assertThat(answer.finishReason()).isEqualTo(FinishReason.LENGTH);
  }

  @Test
  void callParameters_overrideTheModelDefaults_fieldByField() {
    MeshChatModel model =
        MeshChatModel.builder(steward)
            .defaultRequestParameters(
                MeshChatRequestParameters.builder()
                    .fidelityFloor(Fidelity.F2)
                    .jouleCeilingUj(4_000_000)
                    .maxOutputTokens(3)
                    .build())
            .build();

    ChatResponse answer =
        model.chat(
            ask("x")
                .parameters(MeshChatRequestParameters.builder().maxOutputTokens(7).build())
                .build());

    MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
    assertThat(receipt.counters().tokensOut()).isEqualTo(7);
    assertThat(receipt.fidelityFloor()).isEqualTo(Fidelity.F2);
  }

  @Test
  void grantTooSmallForTheCeiling_isRefusedWithItsLabel_andNothingIsSealed() throws Exception {
    SigningKey me = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(me, steward.identity(), 1_000, now.minusSeconds(60), now.plusSeconds(3600));
    MeshChatModel model = MeshChatModel.of(steward);
    long before = steward.head().nextSequence();

    assertThatThrownBy(
            () ->
                model.chat(
                    ask("over budget")
                        .parameters(
                            MeshChatRequestParameters.builder()
                                .grant(GrantPresenter.of(me, grant))
                                .jouleCeilingUj(2_000_000)
                                .build())
                        .build()))
        .isInstanceOf(MeshGrantRefusedException.class)
        .isInstanceOf(NonRetriableException.class)
        .satisfies(
            e -> {
              MeshRefusal r = (MeshRefusal) e;
              assertThat(r.reason()).isEqualTo(ServeException.Reason.GRANT_REFUSED);
              assertThat(r.label()).contains(DenialLabel.BUDGET_EXHAUSTED);
            });
    assertThat(steward.head().nextSequence()).isEqualTo(before);
  }

  @Test
  void presenterWithoutTheIssuersKey_isAnAuthenticationError() throws Exception {
    SigningKey issuer = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(
            issuer, steward.identity(), 9_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    MeshChatModel model =
        MeshChatModel.builder(steward)
            .defaultRequestParameters(
                MeshChatRequestParameters.builder()
                    .grant(GrantPresenter.of(Jcp.newKey(), grant))
                    .build())
            .build();

    assertThatThrownBy(() -> model.chat(ask("not mine").build()))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void noBackendAtTheFloor_isInadmissible_anInvalidRequest() {
    MeshChatModel model = MeshChatModel.of(steward);

    assertThatThrownBy(
            () ->
                model.chat(
                    ask("too fine")
                        .parameters(
                            MeshChatRequestParameters.builder().fidelityFloor(Fidelity.F4).build())
                        .build()))
        .isInstanceOf(MeshInadmissibleException.class)
        .isInstanceOf(InvalidRequestException.class)
        .satisfies(
            e ->
                assertThat(((MeshRefusal) e).reason())
                    .isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND));
  }

  @Test
  void whatAStewardCannotServe_isRefusedBeforeServing() {
    MeshChatModel model = MeshChatModel.of(steward);

    assertThatThrownBy(() -> model.chat(ask("x").modelName("gpt-5").build()))
        .isInstanceOf(ModelNotFoundException.class);
    assertThatThrownBy(
            () ->
                model.chat(
                    ask("x")
                        .toolSpecifications(ToolSpecification.builder().name("t").build())
                        .build()))
        .isInstanceOf(UnsupportedFeatureException.class);
    assertThatThrownBy(() -> model.chat(ask("x").stopSequences(List.of("\n")).build()))
        .isInstanceOf(UnsupportedFeatureException.class);
    assertThatThrownBy(
            () ->
                model.chat(
                    ChatRequest.builder()
                        .messages(UserMessage.from(ImageContent.from("https://example.org/a.png")))
                        .build()))
        .isInstanceOf(UnsupportedFeatureException.class);
    // A lone surrogate has no UTF-8 encoding, so no prompt hash: refused, never replaced.
    assertThatThrownBy(() -> model.chat(ask("bad \uD800").build()))
        .isInstanceOf(InvalidRequestException.class);
    assertThat(steward.head().nextSequence()).isZero();
  }

  /**
   * Regression: the HTTP binding refuses a chat message's {@code name} (400 {@code unsupported},
   * SPEC.md 70), since the prompt a receipt vouches for is each message's role and text alone; this
   * adapter, which serves a chat "exactly as" that body, dropped a user message's name and served
   * it as if unnamed.
   */
  @Test
  void aNamedUserMessage_isRefused_asTheChatCompletionsBindingRefusesIt() {
    MeshChatModel model = MeshChatModel.of(steward);

    assertThatThrownBy(
            () ->
                model.chat(ChatRequest.builder().messages(UserMessage.from("alice", "x")).build()))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("name 'alice'")
        .hasMessageContaining("put it in the text");
    assertThat(steward.head().nextSequence()).isZero();
  }

  @Test
  void streamCancelledAtTheFirstText_stopsTheEngine_andStillCompletesWithTheReceipt()
      throws Exception {
    MeshStreamingChatModel model = MeshStreamingChatModel.of(steward);
    AtomicInteger partials = new AtomicInteger();
    StreamedAnswer done =
        new StreamedAnswer(
            (partial, context) -> {
              partials.incrementAndGet();
              context.streamingHandle().cancel();
            });

    model.chat(
        ask("long")
            .parameters(
                MeshChatRequestParameters.builder()
                    .maxOutputTokens(20_000)
                    .jouleCeilingUj(100_000_000)
                    .build())
            .build(),
        done);

    ChatResponse answer = done.get(30, TimeUnit.SECONDS);
    assertThat(partials).hasValue(1);
    MeshReceipt receipt = MeshChatResponseMetadata.of(answer).receipt();
    assertThat(receipt.counters().tokensOut()).isPositive().isLessThan(20_000);
    assertThat(answer.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @Test
  void streamRefused_reachesOnError() throws Exception {
    MeshStreamingChatModel model = MeshStreamingChatModel.of(steward);
    StreamedAnswer done = new StreamedAnswer((partial, context) -> {});

    model.chat(
        ask("too fine")
            .parameters(MeshChatRequestParameters.builder().fidelityFloor(Fidelity.F4).build())
            .build(),
        done);

    assertThatThrownBy(() -> done.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(MeshInadmissibleException.class);
  }

  @Test
  void parametersPrintNoKey() throws Exception {
    SigningKey me = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(me, steward.identity(), 1_000, now.minusSeconds(60), now.plusSeconds(3600));
    String seed = java.util.HexFormat.of().formatHex(me.exportSeed());

    String printed =
        MeshChatRequestParameters.builder().grant(GrantPresenter.of(me, grant)).build().toString();

    assertThat(printed).contains(grant.leaf().id().toString()).doesNotContain(seed);
  }
}
