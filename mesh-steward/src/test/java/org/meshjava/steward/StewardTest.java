package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.FidelityReport;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.SignedCores;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;
import org.meshjava.steward.ServeException.Reason;

/** One serve through the steward (§2 without grants, §3.2.1, §3.3, §5, §6). */
class StewardTest {
  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  private static final TokenSequence PROMPT = TokenSequence.of(11, 22, 33, 44);
  private static final ContentId PROMPT_HASH = ContentId.ofBytes(new byte[] {'h', 'i'});

  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  /** 4 prompt tokens, 8 max tokens. */
  private static ServeRequest generation(Fidelity floor) {
    return ServeRequest.generation(
        PROMPT_HASH, PROMPT.size(), new ServeBounds(8, floor, 1_000_000));
  }

  private static ServeRequest decision() {
    return ServeRequest.decision(
        PROMPT_HASH,
        PROMPT.size(),
        new ServeBounds(8, Fidelity.F1, 1_000_000),
        new DecisionShape(2, 5, 3));
  }

  private ScriptedEngine engine(
      String name, Fidelity fidelity, long ujPerToken, ScriptedEngine.Behaviour b) {
    return new ScriptedEngine(name, fidelity, ujPerToken, events, b);
  }

  private Steward steward(ScriptedEngine... engines) {
    Steward.Builder b =
        Steward.builder(KEY).chainHead(ChainHead.GENESIS).meter(new RecordingMeter(events));
    for (ScriptedEngine e : engines) {
      b.backend(e);
    }
    return b.build();
  }

  /** Serves and expects a refusal for {@code reason} that sealed nothing and left the head. */
  private static ServeException assertRefused(
      Steward steward, ServeRequest request, Reason reason) {
    ChainHead before = steward.head();
    ServeException e =
        catchThrowableOfType(ServeException.class, () -> steward.serve(request, PROMPT));
    assertThat(e).as("serve must be refused with " + reason).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
    assertThat(steward.head()).isEqualTo(before);
    return e;
  }

  // ---- the happy path -------------------------------------------------------------------------

  @Test
  void serve_routesMetersAndSeals_aReceiptThatOpensAndNamesWhatServed() throws Exception {
    ScriptedEngine dear = engine("dear", Fidelity.F4, 50, ScriptedEngine.greedy());
    ScriptedEngine cheap = engine("cheap", Fidelity.F2, 10, ScriptedEngine.greedy());
    Steward steward = steward(dear, cheap);
    ServeRequest request = generation(Fidelity.F1);

    ServeResult result = steward.serve(request, PROMPT);

    MeshReceipt r = Jcr1.open(result.envelope()).receipt();
    assertThat(r).isEqualTo(result.receipt());
    assertThat(r.backend()).isEqualTo("cheap");
    assertThat(r.recipe()).isEqualTo("cheap-base+adapter");
    assertThat(r.route()).isEqualTo(result.route().justification()).contains("cheap");
    assertThat(result.route().candidates())
        .extracting(RouteCandidate::backend)
        .containsExactly("dear", "cheap");
    assertThat(r.requestId()).isEqualTo(request.id());
    assertThat(r.steward())
        .isEqualTo(steward.identity())
        .isEqualTo(DidKey.of(KEY.verificationKey()));
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F1);
    assertThat(r.counters().tokensIn()).isEqualTo(4);
    assertThat(r.counters().tokensOut()).isEqualTo(8);
    assertThat(r.counters().tokensAccepted()).isEqualTo(8);
    assertThat(r.energy().estimatedUj()).as("10 uJ x (4 in + 8 out)").isEqualTo(120);
    assertThat(r.sequence()).isZero();
    assertThat(r.prev()).isEmpty();
    assertThat(r.grantId()).isEmpty();
    assertThat(result.tokens().size()).isEqualTo(8);
    assertThat(dear.serves()).isZero();
    assertThat(steward.head()).isEqualTo(ChainHead.after(result.sealed()));
  }

  @Test
  void serve_copiesEveryOutcomeCounterOntoTheReceipt() throws Exception {
    ScriptedEngine spec =
        engine(
            "spec",
            Fidelity.F2,
            10,
            (req, prompt) ->
                new EngineResult(
                    TokenSequence.of(1, 2, 3, 4, 5),
                    new ServeOutcome(4, 5, 3, 2, 6, 3, Optional.empty(), Optional.empty())));

    MeshReceipt r = steward(spec).serve(generation(Fidelity.F1), PROMPT).receipt();

    assertThat(
            List.of(
                r.counters().tokensIn(),
                r.counters().tokensOut(),
                r.counters().tokensAccepted(),
                r.counters().cacheHitTokens(),
                r.counters().specProposed(),
                r.counters().specAccepted()))
        .containsExactly(4L, 5L, 3L, 2L, 6L, 3L);
  }

  @Test
  void serve_metersAroundTheEngine_openBeforeAndCloseAfter() throws Exception {
    steward(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()))
        .serve(generation(Fidelity.F1), PROMPT);

    assertThat(events).containsExactly("open", "serve", "close");
  }

  // ---- every failure seals nothing ------------------------------------------------------------

  @Test
  void serve_whenNoBackendIsAdmissible_refusesWithEveryCandidate_beforeMeteringOrServing() {
    ScriptedEngine weak = engine("weak", Fidelity.F1, 1, ScriptedEngine.greedy());
    ScriptedEngine dear = engine("dear", Fidelity.F4, 1_000_000, ScriptedEngine.greedy());
    Steward steward = steward(weak, dear);

    ServeException e =
        assertRefused(steward, generation(Fidelity.F3), Reason.NO_ADMISSIBLE_BACKEND);

    assertThat(e.candidates()).extracting(RouteCandidate::backend).containsExactly("weak", "dear");
    assertThat(e.candidates())
        .extracting(c -> c.inadmissibility().orElseThrow().kind())
        .containsExactly(Inadmissibility.Kind.BELOW_FLOOR, Inadmissibility.Kind.OVER_CEILING);
    assertThat(events).isEmpty();
  }

  @Test
  void serve_whenTheEngineThrowsEngineException_closesTheWindowOnWhatRanAndSealsNothing() {
    Steward steward =
        steward(
            engine(
                "a",
                Fidelity.F2,
                10,
                (req, p) -> {
                  throw new EngineException("out of memory");
                }));

    ServeException e = assertRefused(steward, generation(Fidelity.F1), Reason.ENGINE_FAILED);

    assertThat(e.getCause()).isInstanceOf(EngineException.class);
    // Closed, not abandoned: the energy metered up to the failure is the serve's figure.
    assertThat(events).containsExactly("open", "serve", "close");
  }

  @Test
  void serve_whenTheEngineThrowsARuntimeException_closesTheWindowOnWhatRanAndSealsNothing() {
    Steward steward =
        steward(
            engine(
                "a",
                Fidelity.F2,
                10,
                (req, p) -> {
                  throw new IllegalStateException("bug");
                }));

    assertRefused(steward, generation(Fidelity.F1), Reason.ENGINE_FAILED);

    assertThat(events).containsExactly("open", "serve", "close");
  }

  @Test
  void serve_whenDeliveredAboveAdvertised_refusesRatherThanClamping() {
    Steward steward =
        steward(
            engine(
                "liar",
                Fidelity.F2,
                10,
                (req, p) -> {
                  EngineResult r = ScriptedEngine.greedy().serve(req, p);
                  return new EngineResult(
                      r.tokens(), r.outcome().withDeliveredFidelity(Fidelity.F3));
                }));

    assertRefused(steward, generation(Fidelity.F1), Reason.FIDELITY_OVERCLAIM);
  }

  @Test
  void serve_whenWeightsAfterDifferFromBefore_refuses() {
    WeightsBinding a = new WeightsBinding(ContentId.ofBytes(new byte[] {1}), "fp32");
    WeightsBinding b = new WeightsBinding(ContentId.ofBytes(new byte[] {2}), "fp32");
    WeightsBinding aHalf = new WeightsBinding(ContentId.ofBytes(new byte[] {1}), "fp16");
    for (List<Optional<WeightsBinding>> answers :
        List.of(
            List.of(Optional.of(a), Optional.of(b)),
            List.of(Optional.of(a), Optional.of(aHalf)),
            List.of(Optional.of(a), Optional.<WeightsBinding>empty()),
            List.of(Optional.<WeightsBinding>empty(), Optional.of(a)))) {
      Steward steward =
          steward(
              engine("swapper", Fidelity.F2, 10, ScriptedEngine.greedy())
                  .reportingWeights(answers));

      assertRefused(steward, generation(Fidelity.F1), Reason.WEIGHTS_CHANGED);
    }
  }

  @Test
  void serve_whenWeightsAreStable_bindsThemOnTheReceipt() throws Exception {
    WeightsBinding w = new WeightsBinding(ContentId.ofBytes(new byte[] {1}), "bf16");
    Steward steward =
        steward(
            engine("bound", Fidelity.F2, 10, ScriptedEngine.greedy())
                .reportingWeights(List.of(Optional.of(w))));

    assertThat(steward.serve(generation(Fidelity.F1), PROMPT).receipt().weights()).contains(w);
  }

  @Test
  void serve_whenTheEngineEmitsMoreThanMaxTokens_refuses() {
    Steward steward =
        steward(
            engine(
                "chatty",
                Fidelity.F2,
                1,
                (req, p) ->
                    new EngineResult(
                        TokenSequence.of(new int[9]), ServeOutcome.greedy(p.size(), 9))));

    assertRefused(steward, generation(Fidelity.F1), Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void serve_whenALocalEngineCallsItsResultRemoteCounted_refuses() {
    // 9 ids emitted but tokens_out 2: only an engine that declares remote accounting may differ.
    Steward steward =
        steward(
            engine(
                "pretender",
                Fidelity.F2,
                1,
                (req, p) ->
                    new EngineResult(
                        TokenSequence.of(new int[9]),
                        ServeOutcome.greedy(p.size(), 2),
                        TokenAccounting.REMOTE_USAGE)));

    assertRefused(steward, generation(Fidelity.F1), Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void serve_whenADecisionIsAnsweredWithoutADecisionOutcome_refuses() {
    Steward steward =
        steward(
            engine(
                "a",
                Fidelity.F2,
                1,
                (req, p) ->
                    new EngineResult(TokenSequence.empty(), ServeOutcome.greedy(p.size(), 0))));

    assertRefused(steward, decision(), Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void serve_whenADecisionEmitsTokens_orAGenerationReportsADecision_refuses() {
    DecisionShape shape = new DecisionShape(2, 5, 3);
    Steward talkative =
        steward(
            engine(
                "a",
                Fidelity.F2,
                1,
                (req, p) ->
                    new EngineResult(
                        TokenSequence.of(1),
                        new ServeOutcome(
                            p.size(), 1, 1, 0, 0, 0, Optional.empty(), Optional.of(shape)))));
    Steward confused =
        steward(
            engine(
                "b",
                Fidelity.F2,
                1,
                (req, p) ->
                    new EngineResult(
                        TokenSequence.empty(),
                        new ServeOutcome(
                            p.size(), 0, 0, 0, 0, 0, Optional.empty(), Optional.of(shape)))));

    assertRefused(talkative, decision(), Reason.INCONSISTENT_OUTCOME);
    assertRefused(confused, generation(Fidelity.F1), Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void serve_afterARefusal_continuesTheChainWhereItStood() throws Exception {
    boolean[] fail = {false};
    Steward steward =
        steward(
            engine(
                "flaky",
                Fidelity.F2,
                10,
                (req, p) -> {
                  if (fail[0]) {
                    throw new EngineException("flake");
                  }
                  return ScriptedEngine.greedy().serve(req, p);
                }));
    SealedReceipt first = steward.serve(generation(Fidelity.F1), PROMPT).sealed();
    fail[0] = true;
    assertRefused(steward, generation(Fidelity.F1), Reason.ENGINE_FAILED);
    fail[0] = false;

    SealedReceipt second = steward.serve(generation(Fidelity.F1), PROMPT).sealed();

    assertThat(second.receipt().sequence()).isEqualTo(1);
    assertThat(ReceiptChain.verifyFromGenesis(List.of(first.envelope(), second.envelope())))
        .hasSize(2);
  }

  // ---- fidelity: advertised and delivered (§3.2.1) --------------------------------------------

  @Test
  void serve_whenDeliveredIsReported_fidelityMetFollowsItNotTheRating() throws Exception {
    Steward steward =
        steward(
            engine(
                "degrader",
                Fidelity.F3,
                10,
                (req, p) -> {
                  EngineResult r = ScriptedEngine.greedy().serve(req, p);
                  return new EngineResult(
                      r.tokens(), r.outcome().withDeliveredFidelity(Fidelity.F1));
                }));

    ServeResult result = steward.serve(generation(Fidelity.F2), PROMPT);

    MeshReceipt r = Jcr1.open(result.envelope()).receipt();
    assertThat(r.fidelityMet()).isFalse();
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F3, Fidelity.F1));
    assertThat(SignedCores.encode(r).get("fidelity_met")).contains(CborInt.of(0));
    assertThat(SignedCores.encode(r).get("fidelity_advertised")).contains(CborInt.of(3));
    assertThat(SignedCores.encode(r).get("fidelity_delivered")).contains(CborInt.of(1));
  }

  @Test
  void serve_whenDeliveredMeetsTheFloor_fidelityMetIsOne() throws Exception {
    Steward steward =
        steward(
            engine(
                "honest",
                Fidelity.F3,
                10,
                (req, p) -> {
                  EngineResult r = ScriptedEngine.greedy().serve(req, p);
                  return new EngineResult(
                      r.tokens(), r.outcome().withDeliveredFidelity(Fidelity.F2));
                }));

    MeshReceipt r = steward.serve(generation(Fidelity.F2), PROMPT).receipt();

    assertThat(r.fidelityMet()).isTrue();
    assertThat(r.fidelityReport()).contains(new FidelityReport(Fidelity.F3, Fidelity.F2));
  }

  @Test
  void serve_whenNothingDeliveredIsReported_fidelityMetRestsOnTheRating_andBothFieldsAreAbsent()
      throws Exception {
    MeshReceipt r =
        steward(engine("quiet", Fidelity.F3, 10, ScriptedEngine.greedy()))
            .serve(generation(Fidelity.F2), PROMPT)
            .receipt();

    assertThat(r.fidelityMet()).isTrue();
    assertThat(r.fidelityReport()).isEmpty();
    assertThat(SignedCores.encode(r).get("fidelity_advertised")).isEmpty();
    assertThat(SignedCores.encode(r).get("fidelity_delivered")).isEmpty();
  }

  // ---- energy provenance (§3.3, §6.2) ---------------------------------------------------------

  @Test
  void serve_withTheEstimatorMeter_sealsAnEstimatorReceiptWithoutMeasurement() throws Exception {
    Steward steward =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .backend(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()))
            .build();

    MeshReceipt r = Jcr1.open(steward.serve(generation(Fidelity.F1), PROMPT).envelope()).receipt();

    assertThat(r.energy().provenance()).isEqualTo(Provenance.Estimator);
    assertThat(r.energy().measuredUj()).isEmpty();
    assertThat(SignedCores.encode(r).get("measured_uj")).isEmpty();
    assertThat(r.energy().estimatedUj()).isEqualTo(120);
    assertThat(r.ujPerAcceptedToken()).hasValue(120 / 8);
  }

  @Test
  void serve_withAHardwareMeter_sealsHwShuntWithMeasurement_andTheWedgeUsesIt() throws Exception {
    Steward steward =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new RecordingMeter(events, OptionalLong.of(1_001)))
            .backend(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()))
            .build();

    MeshReceipt r = Jcr1.open(steward.serve(generation(Fidelity.F1), PROMPT).envelope()).receipt();

    assertThat(r.energy().provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(r.energy().measuredUj()).hasValue(1_001);
    assertThat(r.energy().estimatedUj()).isEqualTo(120);
    assertThat(SignedCores.encode(r).get("measured_uj")).contains(CborInt.of(1_001));
    assertThat(SignedCores.encode(r).get("uj_per_accepted_token")).contains(CborInt.of(1_001 / 8));
  }

  // ---- output commitment (§6.4) ---------------------------------------------------------------

  @Test
  void serve_ofAGeneration_commitsToTheOutputUnderTheStewardsOpening() throws Exception {
    Steward steward = steward(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()));
    ServeRequest request = generation(Fidelity.F1);

    ServeResult result = steward.serve(request, PROMPT);

    ContentId expected =
        OutputCommitment.commit(
            steward.opening(request.id()),
            request.id(),
            OutputCommitment.payloadDigest(PROMPT),
            result.tokens());
    assertThat(result.receipt().outputCommitment()).contains(expected);
  }

  @Test
  void serve_ofADecision_sealsNoOutputCommitmentAndTheDecisionFigures() throws Exception {
    Steward steward =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .backend(ReferenceEngine.builder().workPerToken(1).build())
            .build();

    ServeResult result = steward.serve(decision(), PROMPT);

    MeshReceipt r = Jcr1.open(result.envelope()).receipt();
    assertThat(r.outputCommitment()).isEmpty();
    assertThat(r.decision()).contains(new DecisionShape(2, 5, 3));
    assertThat(r.ujPerAcceptedToken()).isEmpty();
    assertThat(r.ujPerDecision()).hasValue(r.energy().uj() / 2);
    assertThat(result.tokens().size()).isZero();
  }

  // ---- the chain ------------------------------------------------------------------------------

  @Test
  void serve_fromEightThreads_formsOneUnbrokenChainWithEachSequenceOnce() throws Exception {
    Steward steward =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .backend(ReferenceEngine.builder().workPerToken(1).build())
            .build();
    int threads = 8;
    int each = 40;
    List<SealedReceipt> all = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < each; i++) {
                    ServeRequest request =
                        ServeRequest.generation(
                            ContentId.ofBytes(new byte[] {(byte) thread, (byte) i}),
                            PROMPT.size(),
                            new ServeBounds(4, Fidelity.F1, 1_000_000));
                    all.add(steward.serve(request, PROMPT).sealed());
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    List<SealedReceipt> ordered =
        all.stream().sorted(Comparator.comparingLong(s -> s.receipt().sequence())).toList();
    assertThat(ordered.stream().map(s -> s.receipt().sequence()).toList())
        .containsExactlyElementsOf(LongStream.range(0, threads * each).boxed().toList());
    List<Envelope> envelopes = ordered.stream().map(SealedReceipt::envelope).toList();
    assertThat(ReceiptChain.verifyFromGenesis(envelopes)).hasSize(threads * each);
    assertThat(steward.head()).isEqualTo(ChainHead.after(ordered.getLast()));
  }

  @Test
  void builder_chainHead_continuesAnExistingChain() throws Exception {
    Steward first = steward(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()));
    SealedReceipt r0 = first.serve(generation(Fidelity.F1), PROMPT).sealed();
    SealedReceipt r1 = first.serve(generation(Fidelity.F1), PROMPT).sealed();

    Steward restarted =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .backend(engine("a", Fidelity.F2, 10, ScriptedEngine.greedy()))
            .chainHead(first.head())
            .build();
    SealedReceipt r2 = restarted.serve(generation(Fidelity.F1), PROMPT).sealed();

    assertThat(r2.receipt().sequence()).isEqualTo(2);
    assertThat(r2.receipt().prev()).contains(r1.envelope().id());
    assertThat(ReceiptChain.verifyFromGenesis(List.of(r0.envelope(), r1.envelope(), r2.envelope())))
        .hasSize(3);
  }
}
