package org.meshjava.steward;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.NonceSource;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.FidelityReport;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Nonce;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.ReceiptLog;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.router.AdmissionRule;
import org.meshjava.router.NoAdmissibleBackendException;
import org.meshjava.router.RouteDecision;
import org.meshjava.router.Router;

/**
 * The steward (§2): the endpoint that routes a request, meters the engine that serves it, and
 * seals the receipt into its hash chain. {@link #serve} reads as the lifecycle's phases in order:
 * route, meter, seal (authorisation joins with grants).
 *
 * <p>A failure in any phase throws {@link ServeException}; nothing is sealed and the chain does not
 * advance. Thread-safe: serves run concurrently, and only the final stamp-and-seal step is
 * serialised, so concurrent serves form one unbroken chain.
 */
public final class Steward {
  private final Opening.Key openingKey;
  private final DidKey identity;
  private final Router router;
  private final EnergyMeter meter;
  private final InstantSource clock;
  private final NonceSource nonces;
  private final ReceiptLog log;

  private Steward(Builder b) {
    this.openingKey = Opening.Key.of(b.key);
    this.identity = DidKey.of(b.key.verificationKey());
    this.router = new Router(b.backends);
    this.meter = b.meter;
    this.clock = b.clock;
    this.nonces = b.nonces;
    this.log = ReceiptLog.resume(b.key, b.head);
  }

  /** Starts a builder for a steward that seals with {@code key}. */
  public static Builder builder(SigningKey key) {
    return new Builder(key);
  }

  /** The steward's identity: the did:key of its sealing key, the receipts' COSE kid. */
  public DidKey identity() {
    return identity;
  }

  /** The backends in registration order. */
  public List<ServingEngine> backends() {
    return router.backends();
  }

  /** Where the receipt chain stands. */
  public ChainHead head() {
    return log.head();
  }

  /** The clock decisions are timed by. */
  public InstantSource clock() {
    return clock;
  }

  /**
   * Serves {@code request} on the prompt token payload: routes it, meters the chosen engine
   * around the work, and seals the receipt.
   *
   * @param request the request; its {@code prompt_hash} addresses the prompt bytes
   * @param prompt the token payload handed to the engine; never enters the receipt in the clear
   * @throws ServeException if any phase refuses or fails; nothing is sealed
   */
  public ServeResult serve(ServeRequest request, TokenSequence prompt) throws ServeException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
    RouteDecision route = route(request, AdmissionRule.ALL);
    ServingEngine engine = route.chosen();
    Metered metered = meter(engine, request, () -> new Worked(engine.serve(request, prompt), List.of()));
    SealedReceipt sealed = seal(request, prompt, route, metered);
    return new ServeResult(metered.result.tokens(), metered.result.outcome(), route, sealed);
  }

  /**
   * Serves a typed decision (§3.6) and hands back the engine's answers with the receipt. The
   * questions must be the ones the request's decision shape counts (number, and options across
   * them); only a {@link DecisionEngine} is admissible; and the engine must answer exactly these
   * questions, one probability per option. The receipt is the one {@link #serve(ServeRequest,
   * TokenSequence)} would seal: the answers never enter it.
   *
   * @param request a decision request
   * @param prompt the token payload: the questions' schema and the state under judgement
   * @param questions the typed questions, in order
   * @throws ServeException {@link ServeException.Reason#QUESTIONS_MISMATCH} if the questions do
   *     not fit the request, and as {@link #serve(ServeRequest, TokenSequence)} otherwise;
   *     nothing is sealed
   */
  public ServeResult serve(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws ServeException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
    List<DecisionQuestion> asked = List.copyOf(questions);
    DecisionCheck.questionsFit(request, asked);
    RouteDecision route = route(request, DecisionCheck.ANSWERS_QUESTIONS);
    DecisionEngine engine = (DecisionEngine) route.chosen();
    Metered metered =
        meter(
            engine,
            request,
            () -> {
              DecisionResult r = engine.decide(request, prompt, asked);
              return new Worked(r.toEngineResult(), r.answers());
            });
    DecisionCheck.answersFit(engine, request, asked, metered.result.outcome(), metered.answers);
    SealedReceipt sealed = seal(request, prompt, route, metered);
    return new ServeResult(
        metered.result.tokens(), metered.result.outcome(), route, sealed, metered.answers);
  }

  /** Derives the opening of the output commitment for a request this steward served (§6.4). */
  public Opening opening(ContentId requestId) {
    return openingKey.open(requestId);
  }

  /**
   * Discloses the output of a generation this steward sealed (§6.4): its opening, the digest of
   * the prompt payload, and the tokens. The disclosure is checked against the receipt before it
   * is returned, so a wrong payload or a receipt from another steward is refused, not disclosed.
   * Works after a restart: the opening is derived from the signing key, never stored.
   *
   * @param receipt a receipt this steward sealed
   * @param prompt the prompt payload the engine was handed
   * @param tokens the output tokens
   * @throws ReceiptException {@code NO_COMMITMENT} for a receipt that commits to nothing (a
   *     decision), {@code NOT_OPENED} if these are not the values it committed to
   */
  public Disclosure disclose(MeshReceipt receipt, TokenSequence prompt, TokenSequence tokens)
      throws ReceiptException {
    Disclosure d = Disclosure.of(opening(receipt.requestId()), prompt, tokens);
    d.verify(receipt);
    return d;
  }

  /** Discloses the output of {@code result}, served on {@code prompt}; see {@link #disclose}. */
  public Disclosure disclose(ServeResult result, TokenSequence prompt) throws ReceiptException {
    return disclose(result.receipt(), prompt, result.tokens());
  }

  // ---- phase 1: route ------------------------------------------------------------------------

  private RouteDecision route(ServeRequest request, AdmissionRule rule) throws ServeException {
    try {
      return router.route(request, rule);
    } catch (NoAdmissibleBackendException e) {
      throw new ServeException(
          ServeException.Reason.NO_ADMISSIBLE_BACKEND, e.getMessage(), e.candidates(), e);
    }
  }

  // ---- phase 3: meter ------------------------------------------------------------------------

  private record Metered(
      EngineResult result,
      List<DecisionAnswer> answers,
      Energy energy,
      Optional<WeightsBinding> weights) {}

  /** What the engine returned: its token-level result, and answers when it decided questions. */
  private record Worked(EngineResult result, List<DecisionAnswer> answers) {}

  /** The engine call the meter wraps. */
  @FunctionalInterface
  private interface Work {
    Worked run() throws EngineException;
  }

  private Metered meter(ServingEngine engine, ServeRequest request, Work work)
      throws ServeException {
    Optional<WeightsBinding> before = engine.weights();
    MeterWindow window = meter.open(engine.domains());
    Worked worked;
    try {
      worked = work.run();
    } catch (EngineException | RuntimeException e) {
      window.abandon();
      throw new ServeException(
          ServeException.Reason.ENGINE_FAILED,
          "backend " + engine.name() + " failed: " + e.getMessage(),
          e);
    }
    EngineResult result = worked.result();
    Energy energy = window.close(engine.costProfile().estimateServed(result.outcome()));
    Optional<WeightsBinding> after = engine.weights();
    if (!before.equals(after)) {
      throw new ServeException(
          ServeException.Reason.WEIGHTS_CHANGED,
          "backend " + engine.name() + " named weights " + describe(before)
              + " before serving and " + describe(after) + " after");
    }
    OutcomeCheck.check(engine, request, result);
    return new Metered(result, worked.answers(), energy, after);
  }

  private static String describe(Optional<WeightsBinding> w) {
    return w.map(b -> b.digest() + "/" + b.precision()).orElse("(none)");
  }

  // ---- phase 4: seal -------------------------------------------------------------------------

  private SealedReceipt seal(
      ServeRequest request, TokenSequence prompt, RouteDecision route, Metered metered) {
    ServingEngine engine = route.chosen();
    ServeOutcome outcome = metered.result.outcome();
    ContentId requestId = request.id();
    Optional<FidelityReport> fidelity =
        outcome.deliveredFidelity().map(d -> new FidelityReport(engine.fidelity(), d));
    boolean met =
        fidelity
            .map(f -> f.delivered().meets(request.fidelityFloor()))
            .orElse(engine.fidelity().meets(request.fidelityFloor()));
    Optional<ContentId> commitment =
        request.isDecision()
            ? Optional.empty()
            : Optional.of(
                OutputCommitment.commit(
                    opening(requestId),
                    requestId,
                    OutputCommitment.payloadDigest(prompt),
                    metered.result.tokens()));
    MeshReceipt.Builder draft =
        MeshReceipt.builder()
            .requestId(requestId)
            .backend(engine.name())
            .recipe(engine.recipe().name())
            .weights(metered.weights)
            .route(route.justification())
            .counters(
                outcome.tokensIn(),
                outcome.tokensOut(),
                outcome.tokensAccepted(),
                outcome.cacheHitTokens(),
                outcome.specProposed(),
                outcome.specAccepted())
            .fidelityFloor(request.fidelityFloor())
            .fidelityReport(fidelity)
            .fidelityMet(met)
            .energy(metered.energy)
            .decision(outcome.decision())
            .outputCommitment(commitment)
            .nonce(Nonce.of(nonces.next()));
    return log.append(draft);
  }

  /** Configures a {@link Steward}. Not thread-safe. */
  public static final class Builder {
    private final SigningKey key;
    private final List<ServingEngine> backends = new ArrayList<>();
    private EnergyMeter meter = new EstimatorMeter();
    private InstantSource clock = InstantSource.system();
    private NonceSource nonces = NonceSource.secureRandom();
    private ChainHead head = ChainHead.GENESIS;

    private Builder(SigningKey key) {
      this.key = Objects.requireNonNull(key, "key");
    }

    /** Registers a backend; registration order breaks routing ties (§4). */
    public Builder backend(ServingEngine engine) {
      backends.add(Objects.requireNonNull(engine, "engine"));
      return this;
    }

    /** Sets the energy meter; the default is the honest {@link EstimatorMeter}. */
    public Builder meter(EnergyMeter v) {
      meter = Objects.requireNonNull(v, "meter");
      return this;
    }

    /** Sets the clock; the default is the system clock. */
    public Builder clock(InstantSource v) {
      clock = Objects.requireNonNull(v, "clock");
      return this;
    }

    /** Sets the nonce source; the default draws from a {@link java.security.SecureRandom}. */
    public Builder nonces(NonceSource v) {
      nonces = Objects.requireNonNull(v, "nonces");
      return this;
    }

    /** Continues an existing receipt chain from {@code head} instead of starting at 0 (§6.3). */
    public Builder chainHead(ChainHead v) {
      head = Objects.requireNonNull(v, "head");
      return this;
    }

    /**
     * Builds the steward.
     *
     * @throws IllegalArgumentException if no backend is registered or two share a name
     */
    public Steward build() {
      return new Steward(this);
    }
  }
}
