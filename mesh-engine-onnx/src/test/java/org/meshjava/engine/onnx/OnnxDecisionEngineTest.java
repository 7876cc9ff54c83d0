package org.meshjava.engine.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.NonceSource;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/** The MiniLM decision engine on the real model from the class path. */
class OnnxDecisionEngineTest {
  static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Proposition("The customer is asking for a refund."),
          new DecisionQuestion.Choice(
              "Which department should handle this message?",
              List.of("billing and refunds", "technical support", "sales")),
          new DecisionQuestion.Score(
              "How angry is the customer?", List.of("calm", "annoyed", "furious")));
  static final String STATE =
      "I was charged twice for my subscription this month and I want my money back.";

  static OnnxDecisionEngine engine;

  @BeforeAll
  static void load() throws Exception {
    engine = OnnxDecisionEngine.builder().build();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  static ServeRequest request(DecisionPayload p, List<DecisionQuestion> qs) {
    return ServeRequest.decision(
        ContentId.ofBytes(STATE.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        p.tokens().size(),
        new ServeBounds(4096, Fidelity.F1, 10_000_000),
        DecisionQuestion.shapeOf(qs, p.schemaTokens()));
  }

  static Steward steward() {
    return Steward.builder(SigningKey.fromSeed(new byte[32]))
        .chainHead(org.meshjava.receipt.ChainHead.GENESIS)
        .meter(new EstimatorMeter())
        .nonces(NonceSource.fixed(new byte[16]))
        .clock(InstantSource.fixed(Instant.EPOCH))
        .backend(engine)
        .build();
  }

  @Test
  void serve_throughSteward_answersEachQuestionWithProbabilitiesSummingToOne_andBindsWeights()
      throws Exception {
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    ServeResult r = steward().serve(request(p, QUESTIONS), p.tokens(), QUESTIONS);
    assertThat(r.answers()).hasSize(3);
    for (int i = 0; i < QUESTIONS.size(); i++) {
      DecisionAnswer a = r.answers().get(i);
      assertThat(a.size()).isEqualTo(QUESTIONS.get(i).optionCount());
      assertThat(Arrays.stream(a.probabilities()).sum())
          .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }
    MeshReceipt receipt = r.receipt();
    assertThat(receipt.ujPerDecision()).isPresent();
    assertThat(receipt.weights()).contains(engine.weights().orElseThrow());
    assertThat(receipt.weights().orElseThrow().precision()).isEqualTo("fp32");
    assertThat(receipt.outputCommitment()).isEmpty();
  }

  @Test
  void steward_neverRoutesAGenerationOrAQuestionlessDecisionToIt() throws Exception {
    org.meshjava.core.DecisionEngine reference = new Expensive();
    Steward s =
        Steward.builder(SigningKey.fromSeed(new byte[32]))
            .chainHead(org.meshjava.receipt.ChainHead.GENESIS)
            .meter(new EstimatorMeter())
            .nonces(NonceSource.fixed(new byte[16]))
            .clock(InstantSource.fixed(Instant.EPOCH))
            .backend(engine)
            .backend(reference)
            .build();
    assertThat(engine.servesPayloadAlone()).isFalse();
    // MiniLM is far cheaper per token, yet a generation goes to the engine that can generate.
    ServeRequest generation =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 4, new ServeBounds(2, Fidelity.F1, Long.MAX_VALUE));
    assertThat(s.serve(generation, TokenSequence.of(1, 2, 3, 4)).route().chosen().name())
        .isEqualTo("reference");
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    ServeRequest decision =
        ServeRequest.decision(
            ContentId.ofBytes(new byte[] {2}),
            p.tokens().size(),
            new ServeBounds(0, Fidelity.F1, Long.MAX_VALUE),
            DecisionQuestion.shapeOf(QUESTIONS, p.schemaTokens()));
    assertThat(s.serve(decision, p.tokens()).route().chosen().name()).isEqualTo("reference");
    // With its questions, the cheaper MiniLM answers.
    assertThat(s.serve(decision, p.tokens(), QUESTIONS).route().chosen().name())
        .isEqualTo("minilm");
  }

  /** A generating, deciding engine far dearer per token than MiniLM. */
  static final class Expensive implements org.meshjava.core.DecisionEngine {
    @Override
    public String name() {
      return "reference";
    }

    @Override
    public org.meshjava.core.Recipe recipe() {
      return org.meshjava.core.Recipe.of("ref");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F2;
    }

    @Override
    public org.meshjava.core.CostProfile costProfile() {
      return org.meshjava.core.CostProfile.perToken(1_000_000);
    }

    @Override
    public org.meshjava.core.EngineResult serve(ServeRequest r, TokenSequence p) {
      int n = (int) r.maxTokens();
      return new org.meshjava.core.EngineResult(
          TokenSequence.of(new int[n]),
          new org.meshjava.core.ServeOutcome(
              p.size(), n, n, 0, 0, 0, java.util.Optional.empty(), r.decision()));
    }

    @Override
    public DecisionResult decide(ServeRequest r, TokenSequence p, List<DecisionQuestion> q) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void decide_ranksTheObviousAnswerFirst() throws Exception {
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    DecisionResult r = engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS);
    // A sanity check that the model really runs: billing beats support and sales for a refund.
    assertThat(r.answers().get(1).mostLikely()).isEqualTo(0);
    // No assertion on the proposition: sentence embeddings barely see negation, so "not X" and
    // "X" sit close together (documented in the engine and the spec draft).
  }

  @Test
  void decide_repeated_givesBitIdenticalProbabilities_soDeterministicIsDeclared() throws Exception {
    assertThat(engine.deterministic()).isTrue();
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    List<DecisionAnswer> first =
        engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS).answers();
    for (int i = 0; i < 4; i++) {
      List<DecisionAnswer> again =
          engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS).answers();
      for (int q = 0; q < first.size(); q++) {
        // equals compares the doubles bit for bit (Arrays.equals on double[]).
        assertThat(again.get(q)).isEqualTo(first.get(q));
      }
    }
  }

  @Test
  void outcome_countsSchemaAndStateTokensFromTheModelsTokenizer() throws Exception {
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    assertThat(p.schemaTokens()).isPositive();
    assertThat(p.stateTokens()).isBetween(10L, 30L);
    DecisionResult r = engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS);
    assertThat(r.outcome().tokensIn()).isEqualTo(p.tokens().size());
    assertThat(r.outcome().tokensOut()).isZero();
    assertThat(r.outcome().decision().orElseThrow().schemaTokens()).isEqualTo(p.schemaTokens());
    assertThat(r.outcome().decision().orElseThrow().optionsScored()).isEqualTo(8);
  }

  /**
   * Regression (found by a verifier written from §3.6 alone): a decision asked as text counts its
   * schema in the schema's bytes, and the receipt sealed that figure beside MiniLM's token count,
   * so schema_tokens (101) exceeded tokens_in (35) and the split of the input could not be read.
   * The receipt now counts both in the engine's tokens.
   */
  @Test
  void aDecisionAskedAsText_sealsTheEnginesSchemaTokens_withinItsTokensIn() throws Exception {
    org.meshjava.core.DecisionPrompt asked =
        new org.meshjava.core.DecisionPrompt(
            QUESTIONS,
            org.meshjava.core.PromptText.of(
                STATE.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    ServeRequest request =
        ServeRequest.decision(
            asked.text().hash(),
            asked.text().bytes().length,
            new ServeBounds(4096, Fidelity.F1, 10_000_000),
            asked.shape());
    MeshReceipt receipt = steward().serve(request, asked).receipt();
    long schema = receipt.decision().orElseThrow().schemaTokens();
    assertThat(schema).isEqualTo(engine.payload(QUESTIONS, STATE).schemaTokens());
    assertThat(schema).isLessThan(receipt.counters().tokensIn());
    assertThat(asked.shape().schemaTokens()).isGreaterThan(receipt.counters().tokensIn());
    assertThat(receipt.decision().orElseThrow().questions()).isEqualTo(QUESTIONS.size());
  }

  @Test
  void decide_refusesAPayloadThatDoesNotBeginWithTheSchema() throws Exception {
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    int[] ids = p.tokens().toArray();
    ids[0] = ids[0] + 1;
    TokenSequence tampered = TokenSequence.of(ids);
    assertThatThrownBy(() -> engine.decide(request(p, QUESTIONS), tampered, QUESTIONS))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.SCHEMA_MISMATCH));
    // An honest payload under a request that misstates schema_tokens is refused as well.
    DecisionPayload misstated = new DecisionPayload(p.tokens(), p.schemaTokens() - 1);
    assertThatThrownBy(() -> engine.decide(request(misstated, QUESTIONS), p.tokens(), QUESTIONS))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.SCHEMA_MISMATCH));
  }

  @Test
  void decide_refusesMalformedInput_withTypedErrors() throws Exception {
    DecisionPayload p = engine.payload(QUESTIONS, STATE);
    // Questions that do not fit the request's shape.
    assertThatThrownBy(
            () -> engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS.subList(0, 2)))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.QUESTIONS_MISMATCH));
    // A generation request.
    ServeRequest generation =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 4, new ServeBounds(4, Fidelity.F1, 10_000));
    assertThatThrownBy(() -> engine.serve(generation, TokenSequence.of(1, 2, 3, 4)))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.NOT_A_DECISION));
    // A token past the vocabulary.
    List<DecisionQuestion> one = List.of(QUESTIONS.get(0));
    DecisionPayload q = engine.payload(one, STATE);
    int[] ids = Arrays.copyOf(q.tokens().toArray(), q.tokens().size() + 1);
    ids[ids.length - 1] = 1_000_000;
    DecisionPayload bad = new DecisionPayload(TokenSequence.of(ids), q.schemaTokens());
    assertThatThrownBy(() -> engine.decide(request(bad, one), bad.tokens(), one))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e ->
                assertThat(e.reason())
                    .isEqualTo(OnnxEngineException.Reason.TOKEN_OUT_OF_VOCABULARY));
    // A state longer than the position table: refused, not silently truncated.
    DecisionPayload longState = engine.payload(one, "refund ".repeat(600));
    assertThatThrownBy(() -> engine.decide(request(longState, one), longState.tokens(), one))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.INPUT_TOO_LONG));
    // Too many options and an empty or one-level rubric never become questions.
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      many.add("option " + i);
    }
    assertThatThrownBy(() -> new DecisionQuestion.Choice("which?", many))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionQuestion.Score("how much?", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void decide_answersAChoiceOver255Options() throws Exception {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 255; i++) {
      many.add("item " + i);
    }
    List<DecisionQuestion> qs = List.of(new DecisionQuestion.Choice("which item?", many));
    DecisionPayload p = engine.payload(qs, "item 17");
    DecisionAnswer a = engine.decide(request(p, qs), p.tokens(), qs).answers().get(0);
    assertThat(a.size()).isEqualTo(255);
  }

  @Test
  void temperature_belowTheFloor_isRefusedAtBuild() {
    for (double t : new double[] {0.1006 / 10, 0.01, 0.0, -1, Double.NaN, 11}) {
      assertThatThrownBy(() -> OnnxDecisionEngine.builder().temperature(t))
          .as("T=%s", t)
          .isInstanceOfSatisfying(
              OnnxEngineException.class,
              e ->
                  assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.INVALID_TEMPERATURE));
    }
  }

  @Test
  void temperature_atTheFloor_neverGivesANearTieOddsAboveTheBound() {
    Temperature t = new Temperature(Temperature.MIN);
    double[] p = t.probabilities(new double[] {0.50, 0.50 - Temperature.NEAR_TIE});
    assertThat(p[0] / p[1]).isLessThanOrEqualTo(Temperature.MAX_NEAR_TIE_ODDS + 1e-9);
    double[] d =
        Temperature.DEFAULT.probabilities(new double[] {0.50, 0.50 - Temperature.NEAR_TIE});
    assertThat(d[0] / d[1]).isLessThan(Temperature.MAX_NEAR_TIE_ODDS);
  }

  @Test
  void weightsDigest_coversTheOnnxBytes_andChangesWhenOneByteChanges() throws Exception {
    OnnxModel original = engine.model();
    byte[] bytes = original.onnx();
    assertThat(original.digest().files()).hasSize(1);
    assertThat(original.digest().files().get(0).path()).isEqualTo("all-minilm-l6-v2.onnx");
    assertThat(original.digest().files().get(0).digest())
        .isEqualTo(ContentId.fromDigest(org.meshjava.core.crypto.Blake3.hash(bytes)));
    // The last byte, so the digest changes whether or not the graph still parses.
    bytes[bytes.length - 1] ^= 1;
    OnnxModel changed =
        OnnxModel.of(original.fileName(), bytes, original.tokenizerJson(), original.precision());
    assertThat(changed.digest().digest()).isNotEqualTo(original.digest().digest());
    WeightsBinding reported = engine.weights().orElseThrow();
    assertThat(reported.digest()).isEqualTo(original.digest().digest());
  }

  @Test
  void quantizedTwin_reportsInt8_andItsOwnDigest_andIsDeterministic() throws Exception {
    try (OnnxDecisionEngine q =
        OnnxDecisionEngine.builder().model(OnnxModel.miniLmQuantized()).build()) {
      assertThat(q.weights().orElseThrow().precision()).isEqualTo("int8");
      assertThat(q.weights().orElseThrow().digest())
          .isNotEqualTo(engine.weights().orElseThrow().digest());
      assertThat(q.model().digest().files().get(0).path()).isEqualTo("all-minilm-l6-v2-q.onnx");
      assertThat(q.deterministic()).isTrue();
      DecisionPayload p = q.payload(QUESTIONS, STATE);
      List<DecisionAnswer> a = q.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS).answers();
      assertThat(q.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS).answers()).isEqualTo(a);
      // Same tokenizer, so the same payload; different arithmetic, so other probabilities.
      assertThat(p).isEqualTo(engine.payload(QUESTIONS, STATE));
      assertThat(a)
          .isNotEqualTo(engine.decide(request(p, QUESTIONS), p.tokens(), QUESTIONS).answers());
    }
  }

  @Test
  void build_refusesAModelThatIsNotOnnx() throws Exception {
    OnnxModel junk =
        OnnxModel.of("junk.onnx", new byte[] {1, 2, 3}, engine.model().tokenizerJson(), "fp32");
    assertThatThrownBy(() -> OnnxDecisionEngine.builder().model(junk).build())
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.MODEL_UNREADABLE));
  }
}
