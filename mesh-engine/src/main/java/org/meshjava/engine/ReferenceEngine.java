package org.meshjava.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.CpuEngine;
import org.meshjava.core.CpuEngineBuilder;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.Setting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.Tokenizer;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.Blake3;

/**
 * The reference engine (§5): deterministic and weights-free, for conformance, tests and demos.
 *
 * <p>For a generation it emits exactly {@code max_tokens} tokens, up to its output limit ({@link
 * #DEFAULT_MAX_OUTPUT_TOKENS} unless configured); a request above it is refused while routing
 * ({@link #limits()}), so the engine never starts work it cannot finish. Its output buffer grows
 * with the tokens emitted rather than being sized by the request up front. Token {@code i} is read
 * from a BLAKE3 chain seeded with the request id and the prompt payload, so the output is a
 * function of the request and the payload alone, as §5 requires of a deterministic engine. Each
 * token costs {@code workPerToken} further BLAKE3 compressions, so the work — and the energy a
 * meter around it reads — grows in proportion to the tokens served. A typed decision emits no
 * tokens and reports the request's decision shape as answered; asked through {@link #decide}, it
 * also answers each question with probabilities drawn from BLAKE3 of the seed, the question's index
 * and the option's index, normalised — deterministic, and meaningless, as a weights-free engine's
 * answers must be.
 *
 * <p>It is weights-free, but for tests and vectors it can be configured to report a weights binding
 * (the digest of a model directory it does not read) and a delivered fidelity, so that the receipt
 * fields of §3.6 and §3.2.1 can be exercised end to end. A delivered level above the rating is
 * accepted here on purpose: the steward, not the engine, refuses it.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReferenceEngine extends CpuEngine implements DecisionEngine {
  /** Token ids are drawn below this bound, the size of a GPT-2 style vocabulary. */
  public static final int VOCABULARY = 50_257;

  /**
   * The most output tokens the engine serves unless configured otherwise: 1,048,576 ids, 4 MiB,
   * about a second of work at the default work per token.
   */
  public static final long DEFAULT_MAX_OUTPUT_TOKENS = 1L << 20;

  /**
   * The cost profile a builder starts from, 100 µJ a token and nothing per scored option: the one
   * value {@code mesh serve} and the Spring starter give a backend entry that names no cost.
   * Immutable.
   */
  public static final CostProfile DEFAULT_COST_PROFILE = CostProfile.perToken(100);

  /** The most output tokens it can ever hold: the largest Java array. */
  public static final long MAX_OUTPUT_TOKENS = Integer.MAX_VALUE - 8;

  private static final int FIRST_BUFFER = 4096;

  private final int workPerToken;
  private final boolean reportsDelivered;
  private final LongConsumer workObserver;
  private final Optional<Fidelity> delivers;
  private final Optional<WeightsBinding> weights;
  private final ServeLimits limits;
  private final Tokenizer tokenizer;

  private ReferenceEngine(Builder b) {
    super(b.descriptor(), b.concurrency());
    this.workPerToken = b.workPerToken;
    this.reportsDelivered = b.reportsDelivered;
    this.workObserver = b.workObserver;
    this.delivers = b.delivers;
    this.weights = b.weights;
    this.limits = ServeLimits.NONE.withMaxOutputTokens(b.maxOutputTokens);
    this.tokenizer = b.tokenizer;
  }

  /** A builder with the defaults: name {@code reference}, F2, 100 µJ per token, 16 work units. */
  public static Builder builder() {
    return new Builder();
  }

  /** Always true: the output is a function of the request and payload. */
  @Override
  public boolean deterministic() {
    return true;
  }

  /** The configured binding, if any; empty by default, as befits a weights-free engine. */
  @Override
  public Optional<WeightsBinding> weights() {
    return weights;
  }

  /** At most its output limit of tokens out; any prompt length and ceiling. */
  @Override
  public ServeLimits limits() {
    return limits;
  }

  /** The configured tokenizer; {@link ByteTokenizer} by default. */
  @Override
  public Tokenizer tokenizer() {
    return tokenizer;
  }

  private Optional<Fidelity> delivered() {
    return delivers.isPresent()
        ? delivers
        : reportsDelivered ? Optional.of(fidelity()) : Optional.empty();
  }

  /**
   * Answers the questions of a decision request: the same work and outcome as {@link #serve} for
   * that request, plus one deterministic answer per question.
   *
   * @throws EngineException if the request is not a decision or the questions do not fit its shape
   */
  @Override
  public DecisionResult decide(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws EngineException {
    return decide(IdentifiedRequest.of(request), prompt, questions);
  }

  /** As {@link #decide(ServeRequest, TokenSequence, List)}, seeded by the id handed with it. */
  @Override
  public DecisionResult decide(
      IdentifiedRequest identified, TokenSequence prompt, List<DecisionQuestion> questions)
      throws EngineException {
    ServeRequest request = identified.request();
    Objects.requireNonNull(questions, "questions");
    if (request.decision().isEmpty()) {
      throw EngineException.toClient("not a decision request");
    }
    // The check the steward makes before routing (DecisionShape.misfit), so both refuse alike.
    if (request.decision().get().misfit(questions).isPresent()) {
      throw EngineException.toClient("the questions do not fit the request's decision shape");
    }
    EngineResult scored = serve(identified, prompt);
    byte[] seed = seed(identified, prompt);
    List<DecisionAnswer> answers = new ArrayList<>(questions.size());
    for (int q = 0; q < questions.size(); q++) {
      answers.add(answer(seed, q, questions.get(q).optionCount()));
    }
    return new DecisionResult(scored.outcome(), answers);
  }

  private static DecisionAnswer answer(byte[] seed, int question, int options) {
    double[] w = new double[options];
    double sum = 0;
    for (int o = 0; o < options; o++) {
      byte[] h =
          Blake3.hash(
              seed,
              ByteBuffer.allocate(8)
                  .order(ByteOrder.LITTLE_ENDIAN)
                  .putInt(question)
                  .putInt(o)
                  .array());
      // 1..1000, so no option is impossible and the sum is never zero.
      w[o] = 1 + Integer.remainderUnsigned(ByteBuffer.wrap(h).getInt(), 1000);
      sum += w[o];
    }
    for (int o = 0; o < options; o++) {
      w[o] /= sum;
    }
    return DecisionAnswer.of(w);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) {
    return serve(IdentifiedRequest.of(request), prompt);
  }

  /** As {@link #serve(ServeRequest, TokenSequence)}, seeded by the id handed with the request. */
  @Override
  public EngineResult serve(IdentifiedRequest identified, TokenSequence prompt) {
    ServeRequest request = identified.request();
    Objects.requireNonNull(prompt, "prompt");
    Optional<Fidelity> delivered = delivered();
    if (request.decision().isPresent()) {
      // A decision scores its options in one pass; model that pass as work per option.
      churn(
          seed(identified, prompt),
          (int)
              Math.min(
                  Integer.MAX_VALUE,
                  request.decision().get().optionsScored() * (long) workPerToken));
      ServeOutcome outcome =
          new ServeOutcome(prompt.size(), 0, 0, 0, 0, 0, delivered, request.decision());
      return new EngineResult(TokenSequence.empty(), outcome);
    }
    return generate(identified, prompt, TokenSink.DISCARD, delivered);
  }

  /**
   * Generates token by token, handing each to {@code sink} as it is drawn and stopping when the
   * sink asks; a decision is served whole. The tokens are those {@link #serve(ServeRequest,
   * TokenSequence)} draws, so a cancelled serve's output is a prefix of the full one.
   */
  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink) {
    return serve(IdentifiedRequest.of(request), prompt, sink);
  }

  /**
   * As {@link #serve(ServeRequest, TokenSequence, TokenSink)}, seeded by the id handed with the
   * request.
   */
  @Override
  public EngineResult serve(IdentifiedRequest identified, TokenSequence prompt, TokenSink sink) {
    Objects.requireNonNull(sink, "sink");
    if (identified.request().decision().isPresent()) {
      return serve(identified, prompt); // emits no tokens, so nothing to hand over
    }
    Objects.requireNonNull(prompt, "prompt");
    return generate(identified, prompt, sink, delivered());
  }

  /** True: generations are handed over token by token. */
  @Override
  public boolean streams() {
    return true;
  }

  private EngineResult generate(
      IdentifiedRequest identified,
      TokenSequence prompt,
      TokenSink sink,
      Optional<Fidelity> delivered) {
    long count = identified.request().maxTokens();
    if (count > limits.maxOutputTokens()) {
      // The router refuses such a request first (limits()); only a caller that bypasses it lands
      // here, before any work.
      throw new IllegalArgumentException(
          "max_tokens "
              + count
              + " is above this engine's output limit "
              + limits.maxOutputTokens());
    }
    int[] tokens = new int[(int) Math.min(count, FIRST_BUFFER)];
    byte[] state = seed(identified, prompt);
    int n = 0;
    while (n < count) {
      state = churn(state, workPerToken);
      if (n == tokens.length) {
        tokens = Arrays.copyOf(tokens, (int) Math.min(count, 2L * tokens.length));
      }
      tokens[n] =
          Integer.remainderUnsigned(
              ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN).getInt(), VOCABULARY);
      if (!sink.accept(tokens[n++])) {
        break;
      }
    }
    ServeOutcome outcome =
        new ServeOutcome(prompt.size(), n, n, 0, 0, 0, delivered, Optional.empty());
    return new EngineResult(TokenSequence.of(Arrays.copyOf(tokens, n)), outcome);
  }

  private static byte[] seed(IdentifiedRequest request, TokenSequence prompt) {
    ContentId id = request.id();
    return Blake3.hash(
        "mesh-java reference engine\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        id.bytes(),
        prompt.toLittleEndian());
  }

  private byte[] churn(byte[] state, int rounds) {
    int n = Math.max(1, rounds);
    byte[] s = Blake3.rehash(state, n); // state is always a 32-byte hash: the seed or a round
    workObserver.accept(n);
    return s;
  }

  @Override
  public String toString() {
    return "ReferenceEngine[" + name() + ", " + fidelity() + ", " + costProfile() + "]";
  }

  /** Configures a {@link ReferenceEngine}. Not thread-safe. */
  public static final class Builder extends CpuEngineBuilder<Builder> {
    private int workPerToken = 16;
    private boolean reportsDelivered;
    private LongConsumer workObserver = n -> {};
    private Optional<Fidelity> delivers = Optional.empty();
    private Optional<WeightsBinding> weights = Optional.empty();
    private long maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS;
    private Tokenizer tokenizer = ByteTokenizer.INSTANCE;

    private Builder() {
      super("reference", Recipe.of("reference"), Fidelity.F2, DEFAULT_COST_PROFILE);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * Sets the most output tokens the engine serves, 1 to {@link #MAX_OUTPUT_TOKENS}; the default
     * is {@link #DEFAULT_MAX_OUTPUT_TOKENS}. A larger {@code max_tokens} is refused while routing.
     */
    public Builder maxOutputTokens(long v) {
      maxOutputTokens =
          Setting.within(
              "maxOutputTokens", v, 1, MAX_OUTPUT_TOKENS, "must be 1.." + MAX_OUTPUT_TOKENS + ": ");
      return this;
    }

    /** Sets the BLAKE3 compressions per token (at least 1; 0 is taken as 1). */
    public Builder workPerToken(int v) {
      workPerToken = Setting.atLeast("workPerToken", v, 0, "must be non-negative: ");
      return this;
    }

    /** Makes the engine report its rating as the delivered fidelity (§3.2.1). */
    public Builder reportsDelivered(boolean v) {
      reportsDelivered = v;
      return this;
    }

    /**
     * Tells {@code observer} how many BLAKE3 compressions each burst of work ran, so tests can
     * check that work grows with the tokens served without timing anything. Package-private: a test
     * hook, not API. The observer must be thread-safe if the engine is shared.
     */
    Builder observeWork(LongConsumer observer) {
      workObserver = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /**
     * Makes the engine report {@code v} as its delivered fidelity, whatever its rating — below it
     * to model a degraded serve, above it to model the overclaim the steward refuses (§3.2.1).
     */
    public Builder delivers(Fidelity v) {
      delivers = Optional.of(Objects.requireNonNull(v, "delivers"));
      return this;
    }

    /**
     * Makes the engine report {@code v} as the weights it runs (§3.6). The engine does not read
     * them: this is for tests and vectors that exercise {@code weights_digest} and {@code
     * precision}.
     */
    public Builder weights(WeightsBinding v) {
      weights = Optional.of(Objects.requireNonNull(v, "weights"));
      return this;
    }

    /**
     * Makes the engine tokenize prompt text with {@code v} instead of byte by byte. The engine
     * reads any ids; this is for tests that check each engine is handed its own tokenizer's ids.
     */
    public Builder tokenizer(Tokenizer v) {
      tokenizer = Objects.requireNonNull(v, "tokenizer");
      return this;
    }

    /** Builds the engine. */
    public ReferenceEngine build() {
      return new ReferenceEngine(this);
    }
  }
}
