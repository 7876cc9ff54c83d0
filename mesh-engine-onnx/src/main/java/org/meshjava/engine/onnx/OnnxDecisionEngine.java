package org.meshjava.engine.onnx;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.meshjava.core.CostProfile;
import org.meshjava.core.CpuEngine;
import org.meshjava.core.CpuEngineBuilder;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;

/**
 * A typed-decision engine (§3.6) running a sentence-embedding transformer through ONNX Runtime;
 * all-MiniLM-L6-v2 by default. It scores the schema in forward passes and emits no tokens.
 *
 * <p><b>Payload.</b> The prompt payload is the questions' schema followed by the state, both as ids
 * of the model's own tokenizer, without special tokens (see {@link #payload}). The schema of one
 * question is its text's tokens followed by each option's tokens in order; the schema of a decision
 * is its questions' schemas in order. The engine re-derives the schema from the typed questions and
 * refuses a payload that does not begin with it, or a request whose {@code schema_tokens} is not
 * its length, so the split it reports is one it checked. {@code tokens_in} is the payload's length.
 *
 * <p><b>Scoring.</b> Each text is embedded as {@code [CLS] ids [SEP]}, mean-pooled over the last
 * hidden state and L2-normalised, as the model was trained. For a choice or a score, the query is
 * the state's ids followed by the question's, and each option is embedded alone; for a proposition,
 * the query is the state alone and the options {@code false}, {@code true} are the embeddings of
 * {@code "not " + text} and of the text. Each option's score is the cosine of its embedding with
 * the query's; the answer is a softmax of the scores over the {@link Temperature}. These are
 * similarity-derived probabilities from an embedding model, not a calibrated classifier: they rank
 * options by closeness in meaning and claim no more than that. Sentence embeddings are known to see
 * negation poorly, so a proposition's two embeddings sit close together and its answer is the
 * weakest of the three kinds; an operator who needs propositions answered well should load a
 * cross-encoder or classifier graph instead.
 *
 * <p><b>Weights and determinism.</b> The weights binding is {@link OnnxModel#digest()} at the
 * model's precision. The session runs on one intra-op and one inter-op thread, sequentially, so
 * reductions happen in a fixed order. At build the engine runs a probe decision three times and
 * declares itself {@link #deterministic()} only if the probabilities are bit-for-bit identical.
 *
 * <p>Thread-safe: ONNX Runtime sessions and the tokenizer may be called concurrently, and the
 * engine holds no other mutable state. {@link #close()} releases the native session.
 */
public final class OnnxDecisionEngine extends CpuEngine implements DecisionEngine, AutoCloseable {
  /** The most ids one forward pass reads, special tokens included (BERT position table). */
  public static final int MAX_SEQUENCE = 512;

  private static final String NEGATION = "not ";

  private final Temperature temperature;
  private final OnnxModel model;
  private final WeightsBinding weights;
  private final OrtEnvironment env;
  private final OrtSession session;
  private final HuggingFaceTokenizer tokenizer;
  private final long cls;
  private final long sep;
  private final long vocabulary;
  private final boolean deterministic;
  private final ExitHold hold;

  private OnnxDecisionEngine(Builder b, OnnxModel model, ExitHold hold) throws OnnxEngineException {
    super(b.descriptor(), b.concurrency());
    this.hold = hold;
    this.temperature = b.temperature;
    this.model = model;
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(
              new ByteArrayInputStream(model.tokenizerJson()),
              Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "cannot load the tokenizer: " + e, e);
    }
    long[] specials = tokenizer.encode("", true, false).getIds();
    if (specials.length != 2) {
      tokenizer.close();
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE,
          "the tokenizer does not frame text as [CLS] ... [SEP]");
    }
    this.cls = specials[0];
    this.sep = specials[1];
    this.vocabulary = VocabularySize.of(model.tokenizerJson());
    try {
      this.env = OrtEnvironment.getEnvironment();
      OrtEnvironmentPin.pin();
      OrtLibraryDirectory.removeOnceLoaded();
      OrtSession.SessionOptions options = new OrtSession.SessionOptions();
      options.setIntraOpNumThreads(1);
      options.setInterOpNumThreads(1);
      options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
      // The same bytes the digest was computed over, never re-read from disk.
      this.session = env.createSession(model.onnxShared(), options);
    } catch (OrtException | RuntimeException e) {
      tokenizer.close();
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE,
          "ONNX Runtime cannot load the model: " + e,
          e);
    }
    this.weights = model.digest().bind(model.precision());
    this.deterministic = probeDeterminism();
  }

  /** A builder with the defaults: name {@code minilm}, F1, 100 µJ per token, 2000 µJ per option. */
  public static Builder builder() {
    return new Builder();
  }

  /** Whether three probe decisions at build gave bit-identical probabilities. */
  @Override
  public boolean deterministic() {
    return deterministic;
  }

  /** False: it emits no tokens and answers a decision only with its typed questions. */
  @Override
  public boolean servesPayloadAlone() {
    return false;
  }

  /** The digest of the ONNX bytes the session loaded, at the model's precision. */
  @Override
  public Optional<WeightsBinding> weights() {
    return Optional.of(weights);
  }

  /** The temperature answers are computed at. */
  public Temperature temperature() {
    return temperature;
  }

  /** The model this engine runs. */
  public OnnxModel model() {
    return model;
  }

  /**
   * Lays out the payload for {@code questions} judging {@code state}: schema tokens, then state
   * tokens, in this engine's vocabulary. A caller puts {@link DecisionPayload#schemaTokens()} in
   * the request's decision shape and the payload's length in {@code prompt_tokens}.
   */
  public DecisionPayload payload(List<DecisionQuestion> questions, String state) {
    Objects.requireNonNull(state, "state");
    long[] schema = schema(questions);
    long[] stateIds = ids(state);
    long[] all = Arrays.copyOf(schema, schema.length + stateIds.length);
    System.arraycopy(stateIds, 0, all, schema.length, stateIds.length);
    return new DecisionPayload(toTokens(all), schema.length);
  }

  /**
   * A decision asked as prompt text, laid out as {@link #payload(List, String)} lays it out: this
   * engine's schema tokens for the questions, then the state's (read as UTF-8).
   */
  @Override
  public TokenSequence payload(DecisionPrompt prompt) {
    return payload(
            prompt.questions(),
            new String(prompt.state().bytes(), java.nio.charset.StandardCharsets.UTF_8))
        .tokens();
  }

  /**
   * Refuses: a generation cannot be served by an engine that emits no tokens, and a decision needs
   * its typed questions ({@link #decide}).
   *
   * @throws OnnxEngineException always, {@code NOT_A_DECISION} or {@code QUESTIONS_REQUIRED}
   */
  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws OnnxEngineException {
    Objects.requireNonNull(request, "request");
    if (request.decision().isEmpty()) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.NOT_A_DECISION, "this engine answers typed decisions only");
    }
    throw new OnnxEngineException(
        OnnxEngineException.Reason.QUESTIONS_REQUIRED,
        "a decision on this engine needs its typed questions");
  }

  @Override
  public DecisionResult decide(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws OnnxEngineException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(questions, "questions");
    if (request.decision().isEmpty()) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.NOT_A_DECISION, "this engine answers typed decisions only");
    }
    DecisionShape shape = request.decision().get();
    Optional<String> misfit = shape.misfit(questions);
    if (misfit.isPresent()) {
      throw new OnnxEngineException(OnnxEngineException.Reason.QUESTIONS_MISMATCH, misfit.get());
    }
    long[] schema = schema(questions);
    long[] payload = toLongs(prompt);
    // schema_tokens counts either this engine's schema tokens (a payload the caller laid out) or
    // the schema's canonical bytes (a decision asked as text, whose request no engine tokenized).
    boolean counted =
        shape.schemaTokens() == schema.length
            || shape.schemaTokens() == DecisionPrompt.schema(questions).length;
    if (!counted
        || payload.length < schema.length
        || !Arrays.equals(payload, 0, schema.length, schema, 0, schema.length)) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.SCHEMA_MISMATCH,
          "the payload must begin with the questions' "
              + schema.length
              + " schema tokens and schema_tokens must say so (it says "
              + shape.schemaTokens()
              + ")");
    }
    for (int i = 0; i < payload.length; i++) {
      if (payload[i] >= vocabulary) {
        throw new OnnxEngineException(
            OnnxEngineException.Reason.TOKEN_OUT_OF_VOCABULARY,
            "payload token " + i + " is " + payload[i] + ", vocabulary is " + vocabulary);
      }
    }
    long[] state = Arrays.copyOfRange(payload, schema.length, payload.length);
    List<DecisionAnswer> answers = new ArrayList<>(questions.size());
    for (DecisionQuestion q : questions) {
      answers.add(DecisionAnswer.of(temperature.probabilities(cosines(state, q))));
    }
    // The receipt's schema_tokens counts this engine's schema tokens, as its tokens_in counts its
    // input, so that the two read as one split (§3.6) whichever unit the request counted in.
    ServeOutcome outcome =
        new ServeOutcome(
            prompt.size(),
            0,
            0,
            0,
            0,
            0,
            Optional.empty(),
            Optional.of(
                new DecisionShape(shape.questions(), shape.optionsScored(), schema.length)));
    return new DecisionResult(outcome, answers);
  }

  private double[] cosines(long[] state, DecisionQuestion q) throws OnnxEngineException {
    float[] query;
    List<long[]> optionIds = new ArrayList<>(q.optionCount());
    if (q instanceof DecisionQuestion.Proposition p) {
      query = embed(state);
      optionIds.add(ids(NEGATION + p.text()));
      optionIds.add(ids(p.text()));
    } else {
      long[] text = ids(q.text());
      long[] joined = Arrays.copyOf(state, state.length + text.length);
      System.arraycopy(text, 0, joined, state.length, text.length);
      query = embed(joined);
      for (String o : q.options()) {
        optionIds.add(ids(o));
      }
    }
    double[] c = new double[optionIds.size()];
    for (int i = 0; i < c.length; i++) {
      float[] e = embed(optionIds.get(i));
      double dot = 0;
      for (int d = 0; d < e.length; d++) {
        dot += (double) query[d] * e[d];
      }
      c[i] = dot;
    }
    return c;
  }

  /** Mean-pooled, L2-normalised embedding of {@code [CLS] ids [SEP]}. */
  private float[] embed(long[] ids) throws OnnxEngineException {
    int n = ids.length + 2;
    if (n > MAX_SEQUENCE) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.INPUT_TOO_LONG,
          "a forward pass would read " + n + " ids; the model reads at most " + MAX_SEQUENCE);
    }
    long[] input = new long[n];
    input[0] = cls;
    System.arraycopy(ids, 0, input, 1, ids.length);
    input[n - 1] = sep;
    long[] mask = new long[n];
    Arrays.fill(mask, 1);
    long[] types = new long[n];
    long[] shape = {1, n};
    Map<String, OnnxTensor> inputs = new HashMap<>();
    try {
      for (String in : session.getInputNames()) {
        long[] data =
            switch (in) {
              case "input_ids" -> input;
              case "attention_mask" -> mask;
              case "token_type_ids" -> types;
              default ->
                  throw new OnnxEngineException(
                      OnnxEngineException.Reason.INFERENCE_FAILED, "unknown model input " + in);
            };
        inputs.put(in, OnnxTensor.createTensor(env, LongBuffer.wrap(data), shape));
      }
      try (OrtSession.Result result = session.run(inputs)) {
        float[][][] hidden = (float[][][]) result.get(0).getValue();
        int dim = hidden[0][0].length;
        float[] pooled = new float[dim];
        for (int t = 0; t < n; t++) {
          for (int d = 0; d < dim; d++) {
            pooled[d] += hidden[0][t][d];
          }
        }
        double norm = 0;
        for (int d = 0; d < dim; d++) {
          pooled[d] /= n;
          norm += (double) pooled[d] * pooled[d];
        }
        float inv = (float) (1 / Math.max(Math.sqrt(norm), 1e-12));
        for (int d = 0; d < dim; d++) {
          pooled[d] *= inv;
        }
        return pooled;
      }
    } catch (OrtException | ClassCastException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.INFERENCE_FAILED, "forward pass failed: " + e, e);
    } finally {
      inputs.values().forEach(OnnxTensor::close);
    }
  }

  /** The schema's ids: each question's text, then each of its options, in order. */
  private long[] schema(List<DecisionQuestion> questions) {
    return questions.stream()
        .flatMap(q -> Stream.concat(Stream.of(q.text()), q.options().stream()))
        .flatMapToLong(text -> LongStream.of(ids(text)))
        .toArray();
  }

  private long[] ids(String text) {
    return tokenizer.encode(text, false, false).getIds();
  }

  private static long[] toLongs(TokenSequence s) {
    long[] out = new long[s.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = s.get(i);
    }
    return out;
  }

  private static TokenSequence toTokens(long[] ids) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Math.toIntExact(ids[i]);
    }
    return TokenSequence.of(out);
  }

  private boolean probeDeterminism() throws OnnxEngineException {
    List<DecisionQuestion> probe =
        List.of(
            new DecisionQuestion.Choice(
                "Which colour is the sky on a clear day?", List.of("blue", "green", "red")));
    long[] state = ids("The weather today is sunny with no clouds.");
    double[] first = temperature.probabilities(cosines(state, probe.get(0)));
    for (int i = 0; i < 2; i++) {
      if (!Arrays.equals(first, temperature.probabilities(cosines(state, probe.get(0))))) {
        return false;
      }
    }
    return true;
  }

  /** Releases the ONNX session and the tokenizer. The engine must not be used afterwards. */
  @Override
  public void close() {
    // Not where the process is stopping: its exit could overtake the native release as it did a
    // build (see ExitHold), and the process's end frees the session anyway.
    if (!hold.hold()) {
      return;
    }
    try {
      session.close();
    } catch (OrtException e) {
      // Closing a session can only fail if the native handle is already gone; nothing to do.
    } finally {
      tokenizer.close();
      hold.release();
    }
  }

  @Override
  public String toString() {
    return "OnnxDecisionEngine["
        + name()
        + ", "
        + model.fileName()
        + ", "
        + model.precision()
        + ", T="
        + temperature.value()
        + "]";
  }

  /**
   * Configures an {@link OnnxDecisionEngine}. Each session call runs on one thread, so the default
   * {@link #concurrency} of one decision per core keeps every core busy. Not thread-safe.
   */
  public static final class Builder extends CpuEngineBuilder<Builder> {
    private Temperature temperature = Temperature.DEFAULT;
    private OnnxModel model;

    @SuppressWarnings("NullAway.Init") // required parts are checked in build()
    private Builder() {
      super(
          "minilm",
          Recipe.of("all-minilm-l6-v2"),
          Fidelity.F1,
          CostProfile.perToken(100).withOptionCost(2_000));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Sets the temperature. */
    public Builder temperature(Temperature v) {
      temperature = Objects.requireNonNull(v, "temperature");
      return this;
    }

    /**
     * Sets the temperature from a number.
     *
     * @throws OnnxEngineException with {@code INVALID_TEMPERATURE} per {@link Temperature#of}
     */
    public Builder temperature(double v) throws OnnxEngineException {
      temperature = Temperature.of(v);
      return this;
    }

    /** Sets the model; the default is {@link OnnxModel#miniLm()}. */
    public Builder model(OnnxModel v) {
      model = Objects.requireNonNull(v, "model");
      return this;
    }

    /**
     * Loads the model, hashes it, opens the session and probes determinism.
     *
     * @throws OnnxEngineException with {@code MODEL_UNREADABLE} if the model cannot be loaded
     */
    public OnnxDecisionEngine build() throws OnnxEngineException {
      return build(ExitHold.JVM);
    }

    /**
     * {@link #build()} with the process's exit held off by {@code hold} while it runs (see {@link
     * ExitHold}); a seam for tests.
     */
    OnnxDecisionEngine build(ExitHold hold) throws OnnxEngineException {
      return build(
          hold,
          () -> new OnnxDecisionEngine(this, model != null ? model : OnnxModel.miniLm(), hold));
    }

    /** What a build runs under its hold: the native loads; a seam for tests. */
    @FunctionalInterface
    interface Loading {
      OnnxDecisionEngine load() throws OnnxEngineException;
    }

    /** {@link #build(ExitHold)} running {@code loading}. */
    static OnnxDecisionEngine build(ExitHold hold, Loading loading) throws OnnxEngineException {
      hold.building();
      try {
        return loading.load();
      } catch (OnnxEngineException | RuntimeException | Error e) {
        // The JVM refuses the loader from the moment it begins to stop, before the hold's hook has
        // run; and a refusal met while ONNX Runtime's classes initialise comes as an Error
        // (ExceptionInInitializerError), which escaped as neither a stop nor a typed failure.
        if (hold.stopping() || ExitHold.refusedAsStopping(e)) {
          // ONNX Runtime's loader, refused its deletions on exit, may have left its libraries.
          OrtLibraryDirectory.find().ifPresent(OrtLibraryDirectory::remove);
          throw ExitHold.stopped(e);
        }
        throw e;
      } finally {
        hold.release();
      }
    }
  }
}
