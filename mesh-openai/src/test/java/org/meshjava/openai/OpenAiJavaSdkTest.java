package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.PermissionDeniedException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.errors.UnauthorizedException;
import com.openai.errors.UnprocessableEntityException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionContentPart;
import com.openai.models.chat.completions.ChatCompletionContentPartImage;
import com.openai.models.chat.completions.ChatCompletionContentPartText;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.StructuredChatCompletion;
import com.openai.models.completions.CompletionUsage;
import com.openai.models.models.Model;
import com.openai.models.responses.EasyInputMessage;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseErrorEvent;
import com.openai.models.responses.ResponseInputContent;
import com.openai.models.responses.ResponseInputImage;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseInputText;
import com.openai.models.responses.ResponseOutputText;
import com.openai.models.responses.ResponseStatus;
import com.openai.models.responses.ResponseStreamEvent;
import com.openai.models.responses.StructuredResponse;
import com.openai.models.responses.ToolChoiceOptions;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.MeshReceipt;

/**
 * The server driven the way a Java application drives OpenAI: with the official OpenAI Java SDK
 * ({@code com.openai:openai-java}, OkHttp), its response validation on, so a field the SDK requires
 * and the server left out, or one it cannot read, fails here. Chat completions whole and streamed,
 * the Responses API, structured outputs answered as typed decisions, models, every documented
 * refusal as the SDK's typed exception with our status and code, a granted serve, and the mesh
 * fields ({@code usage.energy}, {@code mesh_decision}) read through the SDK's additional
 * properties.
 */
class OpenAiJavaSdkTest {
  private Fixture f = new Fixture();
  private OpenAIClient client = client(f);

  @AfterEach
  void close() {
    client.close();
    f.close();
  }

  /** A client as an application builds one: our base URL, a key we ignore, no retries. */
  private static OpenAIClient client(Fixture f) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(f.server.baseUri().toString())
        .apiKey("unused")
        .maxRetries(0)
        .responseValidation(true)
        .timeout(Duration.ofSeconds(30))
        .build();
  }

  private static ChatCompletionCreateParams.Metadata chatMetadata(String floor) {
    return ChatCompletionCreateParams.Metadata.builder()
        .putAdditionalProperty("fidelity_floor", JsonValue.from(floor))
        .build();
  }

  private static ChatCompletionCreateParams.Builder chat(String prompt, long maxTokens) {
    return ChatCompletionCreateParams.builder()
        .model("auto")
        .addUserMessage(prompt)
        .maxCompletionTokens(maxTokens)
        .metadata(chatMetadata("F1"));
  }

  private static ResponseCreateParams.Builder responses(String input, long maxTokens) {
    return ResponseCreateParams.builder()
        .model("auto")
        .input(input)
        .maxOutputTokens(maxTokens)
        .metadata(
            ResponseCreateParams.Metadata.builder()
                .putAdditionalProperty("fidelity_floor", JsonValue.from("F1"))
                .build());
  }

  /** The receipt a {@code usage} object carries in {@code energy}, checked against its envelope. */
  /** The verified receipt in {@code extras}' {@code energy} (of a usage, or a chunk). */
  private static MeshReceipt receipt(Map<String, JsonValue> extras) throws Exception {
    JsonValue energy = extras.get("energy");
    assertThat(energy).as("energy").isNotNull();
    return Fixture.verifiedReceipt(tree(energy));
  }

  private static JsonNode tree(JsonValue v) {
    return Fixture.JSON.valueToTree(v.convert(Object.class));
  }

  // ---- chat completions --------------------------------------------------------------------

  @Test
  void chatCompletion_isReadWithValidation_andItsUsageCarriesTheReceipt() throws Exception {
    HttpResponseFor<ChatCompletion> raw =
        client.chat().completions().withRawResponse().create(chat("Hello, SDK.", 6).build());
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(raw.headers().values("Content-Type"))
        .singleElement()
        .asString()
        .startsWith("application/json");
    ChatCompletion c = raw.parse();

    assertThat(c.id()).startsWith("chatcmpl-");
    assertThat(c.model()).isEqualTo("small");
    ChatCompletion.Choice choice = c.choices().getFirst();
    assertThat(choice.index()).isZero();
    assertThat(choice.message().content()).hasValueSatisfying(t -> assertThat(t).isNotBlank());
    // The reference engine always runs to max_tokens, as OpenAI reports such a cut.
    assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
    var usage = c.usage().orElseThrow();
    assertThat(usage.completionTokens()).isEqualTo(6);
    assertThat(usage.totalTokens()).isEqualTo(usage.promptTokens() + 6);
    MeshReceipt receipt = receipt(usage._additionalProperties());
    assertThat(receipt.counters().tokensOut()).isEqualTo(6);
    assertThat(receipt.backend()).isEqualTo("small");
  }

  @Test
  void streaming_withoutIncludeUsage_piecesMatchTheWholeReply_andTheLastChunkCarriesTheReceipt()
      throws Exception {
    String whole =
        client
            .chat()
            .completions()
            .create(chat("Same prompt twice.", 7).build())
            .choices()
            .getFirst()
            .message()
            .content()
            .orElseThrow();
    HttpResponseFor<StreamResponse<ChatCompletionChunk>> raw =
        client.chat().completions().withRawResponse().createStreaming(chat("Headers.", 2).build());
    try (StreamResponse<ChatCompletionChunk> chunks = raw.parse()) {
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(raw.headers().values("Content-Type"))
          .singleElement()
          .asString()
          .startsWith("text/event-stream");
      assertThat(chunks.stream().count()).isPositive();
    }
    Streamed s = stream(chat("Same prompt twice.", 7).build());
    assertThat(s.text()).isEqualTo(whole);
    assertThat(s.finish()).containsExactly(ChatCompletionChunk.Choice.FinishReason.LENGTH);
    assertThat(s.roles()).containsExactly(ChatCompletionChunk.Choice.Delta.Role.ASSISTANT);
    // Unasked, no usage, as from OpenAI; the receipt rides on the finishing chunk as "energy".
    assertThat(s.usage()).isEmpty();
    assertThat(receipt(s.extras().getLast()).counters().tokensOut()).isEqualTo(7);
  }

  @Test
  void streaming_withIncludeUsage_reportsTheTokenCountsOnce() throws Exception {
    Streamed s =
        stream(
            chat("Count my tokens.", 5)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                .build());
    assertThat(s.usage()).hasSize(1);
    var usage = s.usage().getFirst();
    assertThat(usage.completionTokens()).isEqualTo(5);
    assertThat(usage.totalTokens()).isEqualTo(usage.promptTokens() + 5);
    assertThat(receipt(usage._additionalProperties()).counters().tokensIn())
        .isEqualTo(usage.promptTokens());
  }

  private record Streamed(
      String text,
      List<ChatCompletionChunk.Choice.FinishReason> finish,
      List<ChatCompletionChunk.Choice.Delta.Role> roles,
      List<CompletionUsage> usage,
      List<Map<String, JsonValue>> extras) {}

  private Streamed stream(ChatCompletionCreateParams params) {
    StringBuilder text = new StringBuilder();
    List<ChatCompletionChunk.Choice.FinishReason> finish = new ArrayList<>();
    List<ChatCompletionChunk.Choice.Delta.Role> roles = new ArrayList<>();
    List<CompletionUsage> usage = new ArrayList<>();
    List<Map<String, JsonValue>> extras = new ArrayList<>();
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(params)) {
      stream.stream()
          .forEach(
              chunk -> {
                assertThat(chunk.id()).startsWith("chatcmpl-");
                for (ChatCompletionChunk.Choice c : chunk.choices()) {
                  text.append(c.delta().content().orElse(""));
                  c.delta().role().ifPresent(roles::add);
                  c.finishReason().ifPresent(finish::add);
                }
                chunk.usage().ifPresent(usage::add);
                if (chunk._additionalProperties().containsKey("energy")) {
                  extras.add(chunk._additionalProperties());
                }
              });
    }
    return new Streamed(text.toString(), finish, roles, usage, extras);
  }

  @Test
  void streamClosedEarly_stillSealsItsWork_andTheSameClientServesAgain() throws Exception {
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(chat("Go on and on.", 4000).build())) {
      Iterator<ChatCompletionChunk> it = stream.stream().iterator();
      String first = "";
      while (first.isEmpty() && it.hasNext()) {
        ChatCompletionChunk chunk = it.next();
        first =
            chunk.choices().isEmpty()
                ? ""
                : chunk.choices().getFirst().delta().content().orElse("");
      }
      assertThat(first).isNotEmpty();
    } // closed after the first piece
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (f.steward.head().nextSequence() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(f.steward.head().nextSequence()).as("the cut stream's work was sealed").isEqualTo(1);

    ChatCompletion again = client.chat().completions().create(chat("And again.", 3).build());
    MeshReceipt receipt = receipt(again.usage().orElseThrow()._additionalProperties());
    assertThat(receipt.sequence()).isEqualTo(1);
    assertThat(receipt.counters().tokensOut()).isEqualTo(3);
  }

  /** The README's Java snippet, as it stands there but for the base URL. */
  @Test
  void readmeSnippet_servesAndPrintsTheEnergy() {
    ChatCompletion r =
        client
            .chat()
            .completions()
            .create(
                ChatCompletionCreateParams.builder()
                    .model("auto")
                    .addUserMessage("What did this answer cost?")
                    .maxCompletionTokens(16)
                    .metadata(
                        ChatCompletionCreateParams.Metadata.builder()
                            .putAdditionalProperty("fidelity_floor", JsonValue.from("F1"))
                            .putAdditionalProperty("joule_ceiling_uj", JsonValue.from("50000"))
                            .build())
                    .build());
    assertThat(r.choices().get(0).message().content().orElse("")).isNotEmpty();
    assertThat(r.usage().orElseThrow()._additionalProperties().get("energy").toString())
        .contains("envelope_hex");
  }

  /** A backend that hands over one token, then fails. */
  private static final class FailsAfterOne implements ServingEngine {
    @Override
    public String name() {
      return "flaky";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("flaky");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F2;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public boolean streams() {
      return true;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      return serve(request, prompt, TokenSink.DISCARD);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
        throws EngineException {
      sink.accept(10);
      // Words declared its client's (SPEC.md 60.10): they reach the SDK's exception.
      throw EngineException.toClient("the device went away");
    }
  }

  @Test
  void aBackendFailingMidStream_isTheSdksSseException_withOurCode() {
    client.close();
    f.close();
    f = new Fixture(null, b -> b.backend(new FailsAfterOne()), s -> {});
    client = client(f);
    List<String> pieces = new ArrayList<>();
    SseException chat =
        catchThrowableOfType(
            SseException.class,
            () -> {
              try (StreamResponse<ChatCompletionChunk> s =
                  client
                      .chat()
                      .completions()
                      .createStreaming(chat("Fail part way.", 4).model("flaky").build())) {
                s.stream()
                    .forEach(
                        c ->
                            c.choices().forEach(ch -> ch.delta().content().ifPresent(pieces::add)));
              }
            });
    assertThat(String.join("", pieces)).as("the piece before the failure").isNotEmpty();
    assertRefusal(chat, 200, "engine_failed", null);

    // A responses stream names its failure in an error event, which the SDK hands over as one.
    List<ResponseStreamEvent> events = new ArrayList<>();
    try (StreamResponse<ResponseStreamEvent> s =
        client.responses().createStreaming(responses("Fail part way.", 4).model("flaky").build())) {
      s.stream().forEach(events::add);
    }
    assertThat(events.getFirst().isCreated()).isTrue();
    ResponseErrorEvent error = events.getLast().error().orElseThrow();
    assertThat(error.code()).contains("engine_failed");
    assertThat(error.message()).contains("the device went away");
    assertThat(events).noneMatch(e -> e.isCompleted() || e.isIncomplete());
  }

  // ---- responses ---------------------------------------------------------------------------

  @Test
  void responsesCreate_isReadWithValidation_andItsUsageCarriesTheReceipt() throws Exception {
    Response r =
        client
            .responses()
            .create(responses("Hello, Responses.", 5).instructions("Answer briefly.").build());
    assertThat(r.id()).startsWith("resp_");
    // What OpenAI's response always carries, repeated from the request or stating no tools.
    assertThat(r.instructions().orElseThrow().asString()).isEqualTo("Answer briefly.");
    assertThat(r.metadata().orElseThrow()._additionalProperties())
        .containsEntry("fidelity_floor", JsonValue.from("F1"));
    assertThat(r.tools()).isEmpty();
    assertThat(r.parallelToolCalls()).isFalse();
    assertThat(r.toolChoice().options()).contains(ToolChoiceOptions.NONE);
    assertThat(r.status()).contains(ResponseStatus.INCOMPLETE);
    assertThat(r.incompleteDetails().orElseThrow().reason())
        .contains(Response.IncompleteDetails.Reason.MAX_OUTPUT_TOKENS);
    String text = outputText(r);
    assertThat(text).isNotBlank();
    var usage = r.usage().orElseThrow();
    assertThat(usage.outputTokens()).isEqualTo(5);
    assertThat(usage.totalTokens()).isEqualTo(usage.inputTokens() + 5);
    assertThat(receipt(usage._additionalProperties()).counters().tokensOut()).isEqualTo(5);
  }

  private static String outputText(Response r) {
    StringBuilder sb = new StringBuilder();
    r.output()
        .forEach(
            item ->
                item.message()
                    .orElseThrow()
                    .content()
                    .forEach(
                        c ->
                            sb.append(c.outputText().map(ResponseOutputText::text).orElseThrow())));
    return sb.toString();
  }

  @Test
  void responsesCreateStreaming_deltasAddUpToTheText_andTheLastEventCarriesTheReceipt()
      throws Exception {
    String whole =
        outputText(client.responses().create(responses("Stream a response.", 6).build()));
    StringBuilder deltas = new StringBuilder();
    List<ResponseStreamEvent> events = new ArrayList<>();
    Response last = null;
    try (StreamResponse<ResponseStreamEvent> stream =
        client.responses().createStreaming(responses("Stream a response.", 6).build())) {
      for (ResponseStreamEvent e : (Iterable<ResponseStreamEvent>) stream.stream()::iterator) {
        events.add(e);
        e.outputTextDelta().ifPresent(d -> deltas.append(d.delta()));
        if (e.incomplete().isPresent()) {
          last = e.incomplete().get().response();
        }
      }
    }
    assertThat(deltas.toString()).isEqualTo(whole);
    assertThat(events.getFirst().isCreated()).isTrue();
    assertThat(events.getLast().isIncomplete()).isTrue();
    assertThat(last).isNotNull();
    assertThat(receipt(last.usage().orElseThrow()._additionalProperties()).counters().tokensOut())
        .isEqualTo(6);
  }

  @Test
  void accumulators_rebuildTheWholeReplyFromEachStream() throws Exception {
    ChatCompletion whole = client.chat().completions().create(chat("Accumulate me.", 6).build());
    ChatCompletionAccumulator chunks = ChatCompletionAccumulator.create();
    try (StreamResponse<ChatCompletionChunk> s =
        client.chat().completions().createStreaming(chat("Accumulate me.", 6).build())) {
      s.stream().forEach(chunks::accumulate);
    }
    ChatCompletion rebuilt = chunks.chatCompletion();
    assertThat(rebuilt.choices().getFirst().message().content())
        .isEqualTo(whole.choices().getFirst().message().content());
    assertThat(rebuilt.choices().getFirst().finishReason())
        .isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
    assertThat(receipt(rebuilt._additionalProperties()).counters().tokensOut()).isEqualTo(6);

    String text = outputText(client.responses().create(responses("Accumulate me.", 6).build()));
    ResponseAccumulator events = ResponseAccumulator.create();
    try (StreamResponse<ResponseStreamEvent> s =
        client.responses().createStreaming(responses("Accumulate me.", 6).build())) {
      s.stream().forEach(events::accumulate);
    }
    Response response = events.response();
    assertThat(outputText(response)).isEqualTo(text);
    assertThat(
            receipt(response.usage().orElseThrow()._additionalProperties()).counters().tokensOut())
        .isEqualTo(6);
  }

  // ---- structured outputs: typed decisions -------------------------------------------------

  /** What a triage asks: a proposition and a choice, as an application declares it. */
  public static final class Triage {
    @JsonPropertyDescription("Is this invoice a duplicate?")
    public boolean duplicate;

    public Team team;
  }

  /** The teams a triage routes to. */
  public enum Team {
    finance,
    ops,
    legal
  }

  @Test
  void structuredOutput_chat_isAnsweredAsATypedDecision_thatTheSdkReadsIntoTheClass()
      throws Exception {
    StructuredChatCompletion<Triage> c =
        client
            .chat()
            .completions()
            .create(
                ChatCompletionCreateParams.builder()
                    .model("auto")
                    .addUserMessage("Invoice 4411, EUR 1,200, same payee as 4410.")
                    .metadata(chatMetadata("F1"))
                    .responseFormat(Triage.class)
                    .build());
    Triage t = c.choices().getFirst().message().content().orElseThrow();
    assertThat(t.team).isNotNull();
    ChatCompletion raw = c.rawChatCompletion();
    JsonNode decision = tree(raw._additionalProperties().get("mesh_decision"));
    assertThat(decision.isEmpty()).isFalse();
    MeshReceipt receipt = receipt(raw.usage().orElseThrow()._additionalProperties());
    assertThat(receipt.counters().tokensOut()).isZero();
  }

  @Test
  void structuredOutput_responses_isAnsweredAsATypedDecisionToo() throws Exception {
    StructuredResponse<Triage> r =
        client
            .responses()
            .create(
                ResponseCreateParams.builder()
                    .model("auto")
                    .input("Invoice 4411, EUR 1,200, same payee as 4410.")
                    .text(Triage.class)
                    .build());
    Triage t =
        r.output()
            .getFirst()
            .message()
            .orElseThrow()
            .content()
            .getFirst()
            .outputText()
            .orElseThrow();
    assertThat(t.team).isNotNull();
    assertThat(r.rawResponse()._additionalProperties()).containsKey("mesh_decision");
  }

  /** A structured output no typed decision expresses: a number. */
  public static final class Amount {
    public int cents;
  }

  @Test
  void structuredOutput_thatIsNoDecision_isABadRequest_namingTheResponseFormat() {
    assertRefusal(
        catchThrowableOfType(
            BadRequestException.class,
            () ->
                client
                    .chat()
                    .completions()
                    .create(
                        ChatCompletionCreateParams.builder()
                            .model("auto")
                            .addUserMessage("How much?")
                            .responseFormat(Amount.class)
                            .build())),
        400,
        "unsupported_schema",
        "response_format");
  }

  @Test
  void optionsTheSdkSendsAtTheirDefaults_areServed() throws Exception {
    ChatCompletion c =
        client
            .chat()
            .completions()
            .create(
                chat("Defaults only.", 3)
                    .addDeveloperMessage("Be brief.")
                    .n(1)
                    .logprobs(false)
                    .tools(List.of())
                    .temperature(0.2)
                    .topP(0.9)
                    .seed(7)
                    .user("tester")
                    .build());
    assertThat(receipt(c.usage().orElseThrow()._additionalProperties()).counters().tokensOut())
        .isEqualTo(3);
  }

  /**
   * A tool choice with no tools, even {@code none}, is refused as OpenAI's chat completions refuse
   * it, so code that works here works there; the SDK raises it as a bad request naming the field.
   */
  @Test
  void aToolChoiceWithoutTools_isABadRequest_namingIt() {
    refusesChat(
        BadRequestException.class,
        400,
        "invalid_field",
        "tool_choice",
        b ->
            b.toolChoice(
                com.openai.models.chat.completions.ChatCompletionToolChoiceOption.Auto.NONE));
  }

  @Test
  void meshDecisionExtension_ridesAsAnAdditionalBodyProperty() throws Exception {
    ChatCompletion c =
        client
            .chat()
            .completions()
            .create(
                chat("The server is down for every customer.", 4)
                    .putAdditionalBodyProperty(
                        "mesh_decision",
                        JsonValue.from(
                            Map.of(
                                "questions",
                                List.of(
                                    Map.of(
                                        "kind", "score",
                                        "text", "How urgent?",
                                        "key", "urgency",
                                        "rubric", List.of("low", "high"))))))
                    .build());
    JsonNode content =
        Fixture.JSON.readTree(c.choices().getFirst().message().content().orElseThrow());
    assertThat(content.path("urgency").asText()).isIn("low", "high");
    assertThat(c._additionalProperties()).containsKey("mesh_decision");
    assertThat(receipt(c.usage().orElseThrow()._additionalProperties()).counters().tokensOut())
        .isZero();
  }

  @Test
  void structuredOutput_streamed_isABadRequest_namingStream() {
    assertRefusal(
        catchThrowableOfType(
            BadRequestException.class,
            () -> {
              try (StreamResponse<ChatCompletionChunk> s =
                  client
                      .chat()
                      .completions()
                      .createStreaming(
                          ChatCompletionCreateParams.builder()
                              .model("auto")
                              .addUserMessage("Invoice 4411.")
                              .responseFormat(Triage.class)
                              .build())) {
                s.stream().forEach(chunk -> {});
              }
            }),
        400,
        "unsupported",
        "stream");
  }

  // ---- models ------------------------------------------------------------------------------

  @Test
  void models_listAndRetrieve_andAnUnknownOneIsNotFound() {
    List<String> ids = client.models().list().data().stream().map(Model::id).toList();
    assertThat(ids).contains("small", "large", "auto", "small-ref", "large-ref");
    Model small = client.models().retrieve("small");
    assertThat(small.ownedBy()).isEqualTo("mesh");
    assertThat(tree(small._additionalProperties().get("mesh")).path("fidelity").asText())
        .isEqualTo("F1");
    NotFoundException e =
        catchThrowableOfType(NotFoundException.class, () -> client.models().retrieve("nope"));
    assertRefusal(e, 404, "model_not_found", "model");
  }

  // ---- refusals ----------------------------------------------------------------------------

  private static void assertRefusal(
      OpenAIServiceException e, int status, String code, String param) {
    assertThat(e).as("refused").isNotNull();
    assertThat(e.statusCode()).isEqualTo(status);
    assertThat(e.code()).as(e.getMessage()).contains(code);
    if (param != null) {
      assertThat(e.param()).contains(param);
    }
    assertThat(e.type()).isPresent();
    assertThat(e.getMessage()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  private <T extends OpenAIServiceException> void refusesChat(
      Class<T> type,
      int status,
      String code,
      String param,
      UnaryOperator<ChatCompletionCreateParams.Builder> change) {
    ChatCompletionCreateParams params = change.apply(chat("Refuse me.", 4)).build();
    assertRefusal(
        catchThrowableOfType(type, () -> client.chat().completions().create(params)),
        status,
        code,
        param);
    // Streamed, the same refusal comes before any chunk.
    assertRefusal(
        catchThrowableOfType(
            type,
            () -> {
              try (StreamResponse<ChatCompletionChunk> s =
                  client.chat().completions().createStreaming(params)) {
                s.stream().forEach(chunk -> {});
              }
            }),
        status,
        code,
        param);
  }

  @Test
  void documentedRefusals_areTheSdksTypedExceptions_withOurStatusCodeAndParam() {
    refusesChat(NotFoundException.class, 404, "model_not_found", "model", b -> b.model("gpt-4o"));
    refusesChat(BadRequestException.class, 400, "unsupported", "n", b -> b.n(2));
    // Outside OpenAI's own range: the body's fault, coded as OpenAI codes it (SPEC.md 70).
    refusesChat(BadRequestException.class, 400, "integer_below_min_value", "n", b -> b.n(0));
    refusesChat(
        BadRequestException.class,
        400,
        "decimal_above_max_value",
        "temperature",
        b -> b.temperature(3.0));
    refusesChat(
        BadRequestException.class,
        400,
        "unsupported",
        "tools",
        b -> b.addFunctionTool(FunctionDefinition.builder().name("lookup").build()));
    refusesChat(BadRequestException.class, 400, "unsupported", "logprobs", b -> b.logprobs(true));
    refusesChat(BadRequestException.class, 400, "unsupported", "stop", b -> b.stop("END"));
    refusesChat(
        BadRequestException.class,
        400,
        "unsupported",
        "messages[0].content[1].type",
        b ->
            ChatCompletionCreateParams.builder()
                .model("auto")
                .maxCompletionTokens(4)
                .addUserMessageOfArrayOfContentParts(
                    List.of(
                        ChatCompletionContentPart.ofText(
                            ChatCompletionContentPartText.builder().text("What is this?").build()),
                        ChatCompletionContentPart.ofImageUrl(
                            ChatCompletionContentPartImage.builder()
                                .imageUrl(
                                    ChatCompletionContentPartImage.ImageUrl.builder()
                                        .url("https://example.com/cat.png")
                                        .build())
                                .build()))));
    refusesChat(
        UnprocessableEntityException.class,
        422,
        "no_admissible_backend",
        "metadata",
        b ->
            b.metadata(
                ChatCompletionCreateParams.Metadata.builder()
                    .putAdditionalProperty("fidelity_floor", JsonValue.from("F4"))
                    .putAdditionalProperty("joule_ceiling_uj", JsonValue.from("10"))
                    .build()));

    assertRefusal(
        catchThrowableOfType(
            BadRequestException.class,
            () ->
                client
                    .responses()
                    .create(
                        responses("Go on from there.", 4).previousResponseId("resp_1").build())),
        400,
        "unsupported",
        "previous_response_id");
  }

  private static ResponseInputItem userMessage(ResponseInputContent... parts) {
    return ResponseInputItem.ofEasyInputMessage(
        EasyInputMessage.builder()
            .role(EasyInputMessage.Role.USER)
            .contentOfResponseInputMessageContentList(List.of(parts))
            .build());
  }

  @Test
  void responses_messageListInput_isServed_andAnImagePartIsRefused() throws Exception {
    ResponseInputContent text =
        ResponseInputContent.ofInputText(
            ResponseInputText.builder().text("What is in this picture?").build());
    Response r =
        client
            .responses()
            .create(responses("unused", 3).inputOfResponse(List.of(userMessage(text))).build());
    assertThat(receipt(r.usage().orElseThrow()._additionalProperties()).counters().tokensOut())
        .isEqualTo(3);

    ResponseInputContent image =
        ResponseInputContent.ofInputImage(
            ResponseInputImage.builder()
                .detail(ResponseInputImage.Detail.AUTO)
                .imageUrl("https://example.com/cat.png")
                .build());
    assertRefusal(
        catchThrowableOfType(
            BadRequestException.class,
            () ->
                client
                    .responses()
                    .create(
                        responses("unused", 3)
                            .inputOfResponse(List.of(userMessage(text, image)))
                            .build())),
        400,
        "unsupported",
        "input[0].content[1].type");
  }

  @Test
  void aFullBackend_isTheSdksRateLimitException_withRetryAfter() throws Exception {
    HeldEngine held = new HeldEngine(1, 1);
    client.close();
    f.close();
    f = new Fixture(null, b -> b.backend(held), s -> {});
    client = client(f);
    CompletableFuture<HttpResponse<String>> first =
        f.http.sendAsync(
            HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("first").toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    try {
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder()
              .model("held")
              .addUserMessage("second")
              .maxCompletionTokens(4)
              .build();
      RateLimitException e =
          catchThrowableOfType(
              RateLimitException.class, () -> client.chat().completions().create(params));
      assertRefusal(e, 429, "backend_busy", "model");
      assertThat(e.headers().values("Retry-After")).containsExactly("1");
    } finally {
      held.release.countDown();
    }
    assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  // ---- a granted serve ---------------------------------------------------------------------

  /**
   * The body the SDK will send for {@code params}, read as the server reads it, so the caller can
   * derive the request its presentation signs (granted_serve_request, §2.3).
   */
  private static JsonNode sdkBody(ChatCompletionCreateParams params) throws Exception {
    return GrantedServeRequest.parseBody(
        ObjectMappers.jsonMapper().writeValueAsBytes(params._body()));
  }

  @Test
  void grantedServe_presentationInTheBody_isServedDebitedAndNotTwice() throws Exception {
    var caller = Jcp.newKey();
    GrantChain chain = f.grant(caller, 5_000_000);
    ChatCompletionCreateParams unsigned =
        chat("Charge this to my grant.", 8)
            .metadata(
                ChatCompletionCreateParams.Metadata.builder()
                    .putAdditionalProperty("fidelity_floor", JsonValue.from("F1"))
                    .putAdditionalProperty("joule_ceiling_uj", JsonValue.from("200000"))
                    .build())
            .build();
    ServeRequest request = GrantedServeRequest.derive(sdkBody(unsigned));
    String presentation = Jcp.present(caller, chain, request).toHex();
    ChatCompletionCreateParams granted =
        unsigned.toBuilder()
            .putAdditionalBodyProperty("jcp_presentation", JsonValue.from(presentation))
            .build();

    ChatCompletion c = client.chat().completions().create(granted);
    MeshReceipt receipt = receipt(c.usage().orElseThrow()._additionalProperties());
    assertThat(receipt.requestId()).isEqualTo(request.id());
    assertThat(receipt.grantId()).contains(chain.leaf().id().contentId());
    assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(5_000_000 - receipt.energy().uj());

    assertRefusal(
        catchThrowableOfType(
            PermissionDeniedException.class, () -> client.chat().completions().create(granted)),
        403,
        "presentation-spent",
        "jcp_presentation");
    ChatCompletionCreateParams changed = granted.toBuilder().maxCompletionTokens(9).build();
    assertRefusal(
        catchThrowableOfType(
            UnauthorizedException.class, () -> client.chat().completions().create(changed)),
        401,
        "bad-signature",
        "jcp_presentation");
  }
}
