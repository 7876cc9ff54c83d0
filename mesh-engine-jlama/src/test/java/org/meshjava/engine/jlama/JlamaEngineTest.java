package org.meshjava.engine.jlama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.NonceSource;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigestException;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.jlama.testing.TinyLlama;
import org.meshjava.receipt.Disclosure;
import org.meshjava.steward.ReplayInputs;
import org.meshjava.steward.ReplayVerdict;
import org.meshjava.steward.Replayer;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/** The Jlama engine on a tiny seeded Llama model the test writes itself. */
class JlamaEngineTest {
  static final TokenSequence PROMPT = TokenSequence.of(1, 75, 104, 108, 111, 33);
  static final ServeRequest REQUEST =
      ServeRequest.generation(
          ContentId.ofBytes(new byte[] {7}),
          PROMPT.size(),
          new ServeBounds(12, Fidelity.F1, 10_000_000));

  @TempDir static Path tmp;
  static Path dir;
  static JlamaEngine engine;

  @BeforeAll
  static void load() throws Exception {
    dir = tmp.resolve("tiny");
    TinyLlama.write(dir, 42);
    engine = JlamaEngine.builder(dir).build();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  static Steward steward(JlamaEngine e) {
    return Steward.builder(SigningKey.fromSeed(new byte[32]))
        .chainHead(org.meshjava.receipt.ChainHead.GENESIS)
        .meter(new EstimatorMeter())
        .nonces(NonceSource.fixed(new byte[16]))
        .clock(InstantSource.fixed(Instant.EPOCH))
        .backend(e)
        .build();
  }

  @Test
  void greedy_isDeclaredDeterministic_andRepeats() throws Exception {
    assertThat(engine.deterministic()).isTrue();
    EngineResult a = engine.serve(REQUEST, PROMPT);
    EngineResult b = engine.serve(REQUEST, PROMPT);
    assertThat(a.tokens().size()).isPositive();
    assertThat(a.tokens()).isEqualTo(b.tokens());
    assertThat(a.outcome().tokensIn()).isEqualTo(PROMPT.size());
    assertThat(a.outcome().counters().tokensAccepted()).isEqualTo(a.outcome().tokensOut());
    // Another payload gives other tokens: the output really depends on the prompt.
    assertThat(engine.serve(REQUEST, TokenSequence.of(1, 200, 3, 9, 50, 60)).tokens())
        .isNotEqualTo(a.tokens());
  }

  @Test
  void weights_areTheModelDirectoryDigest_atFp32() throws Exception {
    assertThat(engine.weights()).contains(ModelDirectory.digest(dir).bind("fp32"));
    assertThat(engine.digest().files())
        .extracting(f -> f.path())
        .containsExactly("config.json", "model.safetensors");
  }

  /**
   * Regression: a bf16 checkpoint was labelled {@code bf16}, but Jlama widens it and the forward
   * pass computes in fp32, which is what §3.6's precision names.
   */
  @Test
  void weights_ofABf16Checkpoint_areLabelledWithTheForwardPassPrecision_fp32() throws Exception {
    Path bf16 = tmp.resolve("bf16");
    TinyLlama.writeBf16(bf16, 42);
    try (JlamaEngine e = JlamaEngine.builder(bf16).build()) {
      assertThat(e.weights()).contains(ModelDirectory.digest(bf16).bind("fp32"));
      assertThat(e.weights()).isNotEqualTo(engine.weights());
      assertThat(e.serve(REQUEST, PROMPT).tokens().size()).isPositive();
    }
  }

  @Test
  void generation_isServedCommittedDisclosedAndReplayedToVerified() throws Exception {
    Steward s = steward(engine);
    ServeResult r = s.serve(REQUEST, PROMPT);
    assertThat(r.tokens().size()).isPositive();
    assertThat(r.receipt().outputCommitment()).isPresent();
    assertThat(r.receipt().weights()).isEqualTo(engine.weights());
    Disclosure d = s.disclose(r, PROMPT);
    ReplayVerdict v =
        Replayer.replay(
            new ReplayInputs(r.receipt(), REQUEST, PROMPT, s.opening(REQUEST.id()))
                .withDisclosure(d),
            engine);
    assertThat(v).isEqualTo(new ReplayVerdict.Verified());
    // A fresh engine on the same directory verifies too: nothing hangs on the instance.
    try (JlamaEngine again = JlamaEngine.builder(dir).build()) {
      assertThat(
              Replayer.replay(
                  new ReplayInputs(r.receipt(), REQUEST, PROMPT, s.opening(REQUEST.id())), again))
          .isEqualTo(new ReplayVerdict.Verified());
    }
  }

  @Test
  void replay_onAModelWithOneWeightChanged_isNotReplayable() throws Exception {
    Steward s = steward(engine);
    ServeResult r = s.serve(REQUEST, PROMPT);
    Path other = tmp.resolve("one-weight-changed");
    TinyLlama.write(other, 42);
    byte[] st = Files.readAllBytes(other.resolve("model.safetensors"));
    st[st.length - 2] ^= 0x01; // a low mantissa bit of the last lm_head weight
    Files.write(other.resolve("model.safetensors"), st);
    // Same backend name and recipe: only the weights differ.
    try (JlamaEngine changed = JlamaEngine.builder(other).recipe(engine.recipe()).build()) {
      assertThat(changed.weights()).isNotEqualTo(engine.weights());
      ReplayVerdict v =
          Replayer.replay(
              new ReplayInputs(r.receipt(), REQUEST, PROMPT, s.opening(REQUEST.id()))
                  .withDisclosure(s.disclose(r, PROMPT)),
              changed);
      assertThat(v)
          .isInstanceOfSatisfying(
              ReplayVerdict.NotReplayable.class,
              n ->
                  assertThat(n.reason())
                      .isEqualTo(ReplayVerdict.NotReplayable.Reason.OTHER_WEIGHTS));
    }
  }

  @Test
  void shardedLayout_loads_digestsEveryShard_andGeneratesWhatTheSingleFileModelDoes()
      throws Exception {
    Path sharded = tmp.resolve("sharded");
    TinyLlama.writeSharded(sharded, 42);
    try (JlamaEngine e = JlamaEngine.builder(sharded).recipe(engine.recipe()).build()) {
      assertThat(e.digest().files())
          .extracting(f -> f.path())
          .containsExactly(
              "config.json",
              "model-00001-of-00002.safetensors",
              "model-00002-of-00002.safetensors",
              "model.safetensors.index.json");
      assertThat(e.weights()).contains(ModelDirectory.digest(sharded).bind("fp32"));
      assertThat(e.serve(REQUEST, PROMPT).tokens())
          .isEqualTo(engine.serve(REQUEST, PROMPT).tokens());
    }
  }

  @Test
  void promptText_isEncodedWithTheModelsTokenizer_andStreamedTokenByToken() throws Exception {
    org.meshjava.core.PromptText text = org.meshjava.core.PromptText.of("user 3\nHi!\n");
    ServeRequest request =
        ServeRequest.generation(text, 5, org.meshjava.core.Fidelity.F1, 10_000_000);
    java.util.List<Integer> streamed = new java.util.ArrayList<>();
    ServeResult r = steward(engine).serve(request, text, route -> token -> streamed.add(token));
    assertThat(r.payload()).isEqualTo(engine.encode("user 3\nHi!\n"));
    assertThat(streamed)
        .containsExactlyElementsOf(java.util.Arrays.stream(r.tokens().toArray()).boxed().toList());
  }

  @Test
  void concurrentServes_beyondTheQueue_areRefusedBusy_notQueuedWithoutBound() throws Exception {
    try (JlamaEngine serial = JlamaEngine.builder(dir).maxWaitingServes(0).build()) {
      assertThat(serial.maxConcurrentServes()).isEqualTo(1);
      assertThat(engine.maxWaitingServes()).isEqualTo(4);
      Steward s = steward(serial);
      org.meshjava.core.PromptText text = org.meshjava.core.PromptText.of("Hi!");
      ServeRequest request =
          ServeRequest.generation(text, 3, org.meshjava.core.Fidelity.F1, 10_000_000);
      java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CompletableFuture<ServeResult> first =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return s.serve(
                      request,
                      text,
                      route ->
                          token -> {
                            inside.countDown();
                            try {
                              release.await();
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                            return true;
                          });
                } catch (org.meshjava.steward.ServeException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(inside.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> s.serve(request, text))
          .isInstanceOfSatisfying(
              org.meshjava.steward.ServeException.class,
              e ->
                  assertThat(e.reason())
                      .isEqualTo(org.meshjava.steward.ServeException.Reason.BACKEND_BUSY));
      release.countDown();
      assertThat(first.get(20, java.util.concurrent.TimeUnit.SECONDS).tokens().size()).isPositive();
    }
  }

  @Test
  void encode_usesTheModelsTokenizer_withBos_andDecodeRoundTrips() throws Exception {
    TokenSequence ids = engine.encode("Hi!");
    assertThat(ids.get(0)).isEqualTo(TinyLlama.BOS);
    assertThat(ids.size()).isGreaterThan(1);
    assertThat(
            engine.decode(
                TokenSequence.of(java.util.Arrays.copyOfRange(ids.toArray(), 1, ids.size()))))
        .isEqualTo("Hi!");
    // The generated tokens decode to a string without throwing, whatever noise they are.
    assertThat(engine.decode(engine.serve(REQUEST, ids).tokens())).isNotNull();
  }

  @Test
  void sampling_isNotDeclaredDeterministic() throws Exception {
    try (JlamaEngine sampler = JlamaEngine.builder(dir).sampling(0.8f).build()) {
      assertThat(sampler.deterministic()).isFalse();
      assertThat(sampler.serve(REQUEST, PROMPT).tokens().size()).isPositive();
    }
    assertThatThrownBy(() -> JlamaEngine.builder(dir).sampling(0f))
        .isInstanceOfSatisfying(
            JlamaEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(JlamaEngineException.Reason.INVALID_SAMPLING));
  }

  @Test
  void build_refusesUnknownLayouts_withTypedErrors() throws Exception {
    Path onlyConfig = tmp.resolve("only-config");
    Files.createDirectories(onlyConfig);
    Files.copy(dir.resolve("config.json"), onlyConfig.resolve("config.json"));
    assertThatThrownBy(() -> JlamaEngine.builder(onlyConfig).build())
        .isInstanceOfSatisfying(
            JlamaEngineException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JlamaEngineException.Reason.UNKNOWN_LAYOUT);
              assertThat(e.layoutReason()).contains(WeightsDigestException.Reason.UNKNOWN_LAYOUT);
            });
    assertThatThrownBy(() -> JlamaEngine.builder(tmp.resolve("absent")).build())
        .isInstanceOfSatisfying(
            JlamaEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(JlamaEngineException.Reason.UNKNOWN_LAYOUT));
    Path noTokenizer = tmp.resolve("no-tokenizer");
    TinyLlama.write(noTokenizer, 1);
    Files.delete(noTokenizer.resolve("tokenizer.json"));
    assertThatThrownBy(() -> JlamaEngine.builder(noTokenizer).build())
        .isInstanceOfSatisfying(
            JlamaEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(JlamaEngineException.Reason.UNKNOWN_LAYOUT));
    Path gpt2 = tmp.resolve("gpt2");
    TinyLlama.write(gpt2, 1);
    Files.writeString(
        gpt2.resolve("config.json"),
        Files.readString(gpt2.resolve("config.json")).replace("\"llama\"", "\"gpt2\""));
    assertThatThrownBy(() -> JlamaEngine.builder(gpt2).build())
        .isInstanceOfSatisfying(
            JlamaEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(JlamaEngineException.Reason.UNSUPPORTED_MODEL));
  }

  @Test
  void serve_refusesMalformedRequests_withTypedErrors() {
    record Case(ServeRequest request, TokenSequence prompt, JlamaEngineException.Reason reason) {}
    List<Case> cases =
        List.of(
            new Case(REQUEST, TokenSequence.empty(), JlamaEngineException.Reason.EMPTY_PROMPT),
            new Case(
                REQUEST,
                TokenSequence.of(1, TinyLlama.VOCABULARY),
                JlamaEngineException.Reason.TOKEN_OUT_OF_VOCABULARY),
            new Case(
                REQUEST,
                TokenSequence.of(1, -1),
                JlamaEngineException.Reason.TOKEN_OUT_OF_VOCABULARY),
            new Case(
                ServeRequest.generation(
                    ContentId.ofBytes(new byte[] {7}),
                    6,
                    new ServeBounds(TinyLlama.CONTEXT, Fidelity.F1, 1)),
                PROMPT,
                JlamaEngineException.Reason.CONTEXT_EXCEEDED),
            new Case(
                ServeRequest.decision(
                    ContentId.ofBytes(new byte[] {7}),
                    6,
                    new ServeBounds(0, Fidelity.F1, 1),
                    DecisionQuestion.shapeOf(List.of(new DecisionQuestion.Proposition("p")), 1)),
                PROMPT,
                JlamaEngineException.Reason.NOT_A_GENERATION));
    for (Case c : cases) {
      assertThatThrownBy(() -> engine.serve(c.request(), c.prompt()))
          .as("%s", c.reason())
          .isInstanceOfSatisfying(
              JlamaEngineException.class, e -> assertThat(e.reason()).isEqualTo(c.reason()));
    }
  }
}
