package org.meshjava.engine.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DescribedEngine;
import org.meshjava.core.EngineBuilder;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.Setting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.Tokenizer;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigest;
import org.meshjava.core.weights.WeightsDigestException;

/**
 * A generation engine (§5) running a Llama-family model from a local Hugging Face directory ({@code
 * config.json}, {@code model.safetensors} or an index and its shards, {@code tokenizer.json})
 * through Jlama, a pure-Java inference library. Nothing is downloaded.
 *
 * <p>It is handed token ids and returns token ids: the prompt payload is read as ids of the model's
 * own vocabulary, fed through the forward pass as they are (no BOS is added: the caller's payload
 * is what the commitment binds), and each output token is chosen from the final logits. With
 * {@linkplain Builder#greedy() greedy} decoding (the default) the token is the argmax, the earliest
 * on a tie, so the output is a function of the weights, the payload and {@code max_tokens}, and the
 * engine declares itself {@link #deterministic()}. With {@linkplain Builder#sampling sampling} it
 * draws from the softmax at a temperature with a secure random source and does not. Generation
 * stops after {@code max_tokens} tokens or after emitting an end-of-sequence token, which is
 * included in the output.
 *
 * <p>Weights: the binding is {@link ModelDirectory#digest} of the directory — the same code and
 * encoding every mesh-java backend uses for §3.6 — computed once at build, before Jlama maps the
 * same files. Its precision is {@code fp32} whatever type the weights are stored in: §3.6 names the
 * arithmetic of the forward pass, and Jlama is loaded with fp32 working memory and no working
 * quantization, so {@code bf16} or {@code fp16} weights are widened and every product accumulates
 * in fp32. Files changed on disk after the build are outside what the digest can see.
 *
 * <p>Thread-safety: serves are serialised on the engine (Jlama's model holds shared scratch
 * tensors), so it is safe to share; it declares {@link #maxConcurrentServes()} 1 and a bounded
 * queue ({@link Builder#maxWaitingServes}, 4 by default), beyond which the steward refuses a serve
 * routed to it at once ({@code BACKEND_BUSY}, HTTP 429) rather than let waiting requests hold every
 * connection of a server with other backends. {@link #close()} releases the model.
 */
public final class JlamaEngine extends DescribedEngine implements AutoCloseable {
  /**
   * The files a model folder must hold, in words for a refusal: what a Hugging Face download of a
   * Llama-family checkpoint holds.
   */
  public static final String MODEL_FILES =
      "config.json, tokenizer.json and model.safetensors (or model.safetensors.index.json and the"
          + " shards it names), as a Hugging Face download of the model holds them";

  /** Jlama's working memory and working quantization type: what the forward pass computes in. */
  private static final DType FORWARD_PASS = DType.F32;

  private final float temperature;
  private final @Nullable RandomGenerator random;
  private final WeightsDigest digest;
  private final WeightsBinding weights;
  private final AbstractModel model;
  private final int vocabulary;
  private final int context;
  private final java.util.List<Integer> eos;
  private final java.util.Map<Integer, String> pieces;
  private final Tokenizer tokenizer = new ModelTokenizer();
  private final int maxWaiting;
  private final Runnable beforeEachPass;

  /** GPT-2 byte-level code points back to their bytes (the inverse of Jlama's table). */
  private static final java.util.Map<Integer, Integer> BYTE_LEVEL = byteLevel();

  private static java.util.Map<Integer, Integer> byteLevel() {
    // Read through Map: Guava's BiMap type is not visible to this module.
    java.util.Map<?, ?> forward =
        (java.util.Map<?, ?>)
            (Object) com.github.tjake.jlama.safetensors.tokenizer.BPETokenizer.alteredBytes;
    java.util.Map<Integer, Integer> inverse = new java.util.HashMap<>();
    forward.forEach((b, c) -> inverse.put((Integer) c, (Integer) b));
    return java.util.Map.copyOf(inverse);
  }

  private JlamaEngine(Builder b) throws JlamaEngineException {
    // The recipe defaults to the model directory's name.
    super(b.descriptor(Recipe.of(b.dir.getFileName().toString())));
    this.temperature = b.temperature;
    this.maxWaiting = b.maxWaiting;
    this.beforeEachPass = b.beforeEachPass;
    this.random = b.temperature == 0 ? null : new SecureRandom();
    try {
      this.digest =
          ModelDirectory.digest(
              b.dir, b.links, Runtime.getRuntime().availableProcessors(), b.digestProgress);
    } catch (WeightsDigestException e) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.UNKNOWN_LAYOUT,
          e.getMessage() + "; a model folder holds " + MODEL_FILES,
          e);
    }
    if (!Files.isRegularFile(b.dir.resolve("tokenizer.json"))) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.UNKNOWN_LAYOUT,
          "the directory has no tokenizer.json; a model folder holds " + MODEL_FILES);
    }
    String family = family(b.dir);
    if (!b.families.contains(family)) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.UNSUPPORTED_MODEL,
          "model_type '" + family + "' is not one of " + b.families);
    }
    try {
      this.model = ModelSupport.loadModel(b.dir.toFile(), FORWARD_PASS, FORWARD_PASS);
    } catch (RuntimeException | LinkageError e) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.MODEL_UNREADABLE, "Jlama cannot load the model: " + e, e);
    }
    this.vocabulary = model.getConfig().vocabularySize;
    this.context = model.getConfig().contextLength;
    this.eos = java.util.List.copyOf(model.getConfig().eosTokens);
    // The forward pass runs at the working type, not the stored one (§3.6).
    this.weights = digest.bind(precision(FORWARD_PASS));
    java.util.Map<?, ?> lookup =
        (java.util.Map<?, ?>) (Object) model.getTokenizer().getModel().vocabLookup;
    java.util.Map<Integer, String> byId = new java.util.HashMap<>();
    lookup.forEach((piece, id) -> byId.put(((Number) id).intValue(), (String) piece));
    this.pieces = java.util.Map.copyOf(byId);
  }

  private static String family(Path dir) throws JlamaEngineException {
    try {
      return ModelDirectory.modelType(dir)
          .orElseThrow(
              () ->
                  new JlamaEngineException(
                      JlamaEngineException.Reason.UNSUPPORTED_MODEL,
                      "config.json has no model_type"));
    } catch (IOException e) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.MODEL_UNREADABLE, "cannot read config.json: " + e, e);
    }
  }

  private static String precision(DType d) {
    return switch (d) {
      case F32 -> "fp32";
      case BF16 -> "bf16";
      case F16 -> "fp16";
      default -> d.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** A builder for the model in {@code dir}. */
  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** True for greedy decoding, false for sampling (§5). */
  @Override
  public boolean deterministic() {
    return random == null;
  }

  @Override
  public Optional<WeightsBinding> weights() {
    return Optional.of(weights);
  }

  /**
   * Neither the prompt nor the output can exceed the model's context, so a request asking for more
   * is refused while routing; their sum is {@link #contextTokens()}, which the steward checks
   * before any work (and {@link #serve} again, as CONTEXT_EXCEEDED, for a caller without one).
   */
  @Override
  public ServeLimits limits() {
    long c = Math.min(context, 0xFFFF_FFFFL);
    return ServeLimits.NONE.withMaxPromptTokens(c).withMaxOutputTokens(c);
  }

  /** The model's context window: the prompt payload and the output together. */
  @Override
  public OptionalLong contextTokens() {
    return OptionalLong.of(context);
  }

  /** The file list the digest covers. */
  public WeightsDigest digest() {
    return digest;
  }

  /** The model's vocabulary size: payload ids must be below it. */
  public int vocabulary() {
    return vocabulary;
  }

  /**
   * The model's own {@code tokenizer.json}: prompt bytes are read as UTF-8 and encoded by {@link
   * #encode(String)}, and output tokens are decoded by {@link #decode(TokenSequence)}. So a request
   * served on prompt text reaches the model as the tokens it was trained on.
   */
  @Override
  public Tokenizer tokenizer() {
    return tokenizer;
  }

  /**
   * Encodes text with the model's own {@code tokenizer.json}, as a caller (or an HTTP binding)
   * builds a payload for this engine. A BOS is prepended when the model's configuration names one,
   * as Llama checkpoints expect at the start of a sequence; the payload, BOS included, is what the
   * forward pass reads and the commitment binds.
   */
  public TokenSequence encode(String text) {
    Objects.requireNonNull(text, "text");
    long[] ids = model.getTokenizer().encode(text);
    int bos = model.getConfig().bosToken;
    boolean addBos = bos >= 0 && (ids.length == 0 || ids[0] != bos);
    int[] out = new int[ids.length + (addBos ? 1 : 0)];
    if (addBos) {
      out[0] = bos;
    }
    for (int i = 0; i < ids.length; i++) {
      out[i + (addBos ? 1 : 0)] = Math.toIntExact(ids[i]);
    }
    return TokenSequence.of(out);
  }

  /**
   * Decodes output tokens to text with the model's own vocabulary, end-of-sequence tokens dropped.
   * Byte-fallback pieces ({@code <0xNN>}) are gathered as bytes and the whole is read as UTF-8;
   * SentencePiece's {@code ▁} is a space (one leading space is dropped, as SentencePiece does);
   * GPT-2 style byte-level pieces are mapped back to their bytes. Done here rather than with
   * Jlama's decoder, which buffers bytes in shared state and mis-handles byte-fallback letters.
   */
  public String decode(TokenSequence tokens) {
    Objects.requireNonNull(tokens, "tokens");
    var vocab = model.getTokenizer().getModel();
    boolean byteLevel = vocab.isLegacy() && !vocab.byteFallback;
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    for (int id : tokens.toArray()) {
      if (eos.contains(id) || vocab.isSpecialToken(id)) {
        continue;
      }
      String piece = pieces.get(id);
      if (piece == null) {
        continue;
      }
      if (piece.length() == 6 && piece.startsWith("<0x") && piece.endsWith(">")) {
        bytes.write(Integer.parseInt(piece.substring(3, 5), 16));
      } else if (byteLevel) {
        piece.codePoints().forEach(c -> bytes.write(BYTE_LEVEL.getOrDefault(c, c)));
      } else {
        bytes.writeBytes(
            piece.replace('\u2581', ' ').getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    String text = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    return !byteLevel && text.startsWith(" ") ? text.substring(1) : text;
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt)
      throws JlamaEngineException {
    return serve(request, prompt, TokenSink.DISCARD);
  }

  /** 1: serves run one at a time (Jlama's model holds shared scratch tensors). */
  @Override
  public int maxConcurrentServes() {
    return 1;
  }

  /** The configured queue bound. */
  @Override
  public int maxWaitingServes() {
    return maxWaiting;
  }

  /** True: each token is handed over as the forward pass chooses it. */
  @Override
  public boolean streams() {
    return true;
  }

  /**
   * Generates token by token, handing each to {@code sink} as it is chosen and stopping when the
   * sink asks; the result is what was generated until then.
   *
   * <p>An exception the sink throws is the caller's own, not a failure of the forward pass: it is
   * passed on as it was thrown. A failure of the JVM in the pass ({@link VirtualMachineError}: out
   * of memory, a stack overflow) is thrown as itself, also where Jlama's worker threads handed it
   * back wrapped, so that a caller tells a limit of the JVM from a failed pass. Every other failure
   * of the pass is {@code INFERENCE_FAILED}.
   */
  @Override
  public synchronized EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
      throws JlamaEngineException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(prompt, "prompt");
    if (request.decision().isPresent()) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.NOT_A_GENERATION,
          "this engine does not answer typed decisions");
    }
    if (prompt.size() == 0) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.EMPTY_PROMPT, "a generation needs at least one prompt token");
    }
    int[] ids = prompt.toArray();
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocabulary) {
        throw new JlamaEngineException(
            JlamaEngineException.Reason.TOKEN_OUT_OF_VOCABULARY,
            "payload token " + i + " is " + prompt.get(i) + "; the vocabulary has " + vocabulary);
      }
    }
    if (ids.length + request.maxTokens() > context) {
      throw new JlamaEngineException(
          JlamaEngineException.Reason.CONTEXT_EXCEEDED,
          ids.length
              + " prompt tokens and max_tokens "
              + request.maxTokens()
              + " exceed the context of "
              + context);
    }
    int max = (int) request.maxTokens();
    int[] out = new int[max];
    int n = 0;
    // The sink's exception, told apart by identity from what the pass throws around it.
    Throwable fromSink = null;
    try (KvBufferCache cache = new KvBufferCache(model);
        KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer()) {
      beforeEachPass.run();
      AbstractTensor<?, ?> hidden = model.batchForward(ids, 0, kv);
      int pos = ids.length;
      while (n < max) {
        AbstractTensor<?, ?> last = hidden.slice(hidden.shape().first() - 1);
        int next = choose(model.getLogits(last));
        hidden.close();
        out[n++] = next;
        boolean more;
        try {
          more = sink.accept(next);
        } catch (RuntimeException | Error e) {
          fromSink = e;
          throw e;
        }
        if (!more || eos.contains(next) || n == max) {
          break;
        }
        beforeEachPass.run();
        hidden = model.forward(next, pos++, kv, Optional.empty());
      }
    } catch (RuntimeException | InternalError e) {
      if (e == fromSink) {
        throw e;
      }
      throw forwardPassFailed(e);
    }
    int[] tokens = Arrays.copyOf(out, n);
    ServeOutcome outcome =
        new ServeOutcome(ids.length, n, n, 0, 0, 0, Optional.empty(), Optional.empty());
    return new EngineResult(TokenSequence.of(tokens), outcome);
  }

  /**
   * What a forward pass that threw {@code e} fails with. The JVM's fault for a read past the end of
   * a mapped file (SIGBUS, an {@link InternalError}) means the weights, mapped at build, were cut
   * short on disk: not a bug of the engine, and every later serve would fault the same way until
   * the engine is built again over whole files, so the words say that. Jlama runs a pass's matrix
   * work on its own worker threads, so the fault may arrive wrapped in the {@link RuntimeException}
   * that carried it back; the shared rule ({@link MappedReadFault}) follows the causes. Any other
   * failure of the JVM found among the causes ({@link JvmFailure}'s rule, which the router, meters
   * and steward follow) is thrown as itself: out of memory on a worker thread is a limit of this
   * JVM, which a caller (the command line's exit 71) must see as one.
   */
  private static JlamaEngineException forwardPassFailed(Throwable e) {
    if (MappedReadFault.in(e)) {
      return new JlamaEngineException(
          JlamaEngineException.Reason.INFERENCE_FAILED,
          "the model's files were cut short on disk while the engine had them mapped (rewritten"
              + " in place, by cp or a download?): restart it once they are whole, and replace"
              + " them by writing new files beside them and renaming",
          e);
    }
    Throwable at = e;
    for (int depth = 0; at != null && depth < 32; depth++, at = at.getCause()) {
      JvmFailure.passIfFailing(at);
    }
    return new JlamaEngineException(
        JlamaEngineException.Reason.INFERENCE_FAILED, "forward pass failed: " + e, e);
  }

  /** Argmax (earliest on a tie) when greedy; a draw from the tempered softmax otherwise. */
  private int choose(float[] probabilities) {
    if (random == null) {
      int best = 0;
      for (int i = 1; i < probabilities.length; i++) {
        if (probabilities[i] > probabilities[best]) {
          best = i;
        }
      }
      return best;
    }
    // Jlama returns a softmax at temperature 1; re-temper it in log space.
    double[] w = new double[probabilities.length];
    double sum = 0;
    for (int i = 0; i < w.length; i++) {
      w[i] = Math.pow(Math.max(probabilities[i], 0), 1.0 / temperature);
      sum += w[i];
    }
    double u = random.nextDouble() * sum;
    double acc = 0;
    for (int i = 0; i < w.length; i++) {
      acc += w[i];
      if (acc >= u) {
        return i;
      }
    }
    return w.length - 1;
  }

  /** Releases the model. */
  @Override
  public synchronized void close() {
    model.close();
  }

  @Override
  public String toString() {
    return "JlamaEngine["
        + name()
        + ", "
        + recipe()
        + ", "
        + weights.precision()
        + (random == null ? ", greedy" : ", sampling T=" + temperature)
        + "]";
  }

  /** The engine's {@link #encode} and {@link #decode} as its {@link Tokenizer}. */
  private final class ModelTokenizer implements Tokenizer {
    @Override
    public String name() {
      return "jlama:" + JlamaEngine.this.name();
    }

    @Override
    public TokenSequence encode(byte[] promptText) {
      return JlamaEngine.this.encode(
          new String(promptText, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public String decode(TokenSequence output) {
      return JlamaEngine.this.decode(output);
    }

    /**
     * True: {@link JlamaEngine#decode} reads the tokens' bytes as UTF-8, skipping special tokens
     * and dropping one leading space, so what later tokens add depends only on the bytes since the
     * last whole character.
     */
    @Override
    public boolean decodesLocally() {
      return true;
    }
  }

  /** Configures a {@link JlamaEngine}. Not thread-safe. */
  public static final class Builder extends EngineBuilder<Builder> {
    private final Path dir;
    private float temperature;
    private ModelDirectory.Links links = ModelDirectory.Links.CONFINED;
    private java.util.Set<String> families = java.util.Set.of("llama", "mistral");
    private int maxWaiting = 4;
    private ModelDirectory.Progress digestProgress = ModelDirectory.Progress.NONE;
    private Runnable beforeEachPass = () -> {};

    private Builder(Path dir) {
      super("jlama", null, Fidelity.F2, CostProfile.perToken(1_000));
      this.dir = Objects.requireNonNull(dir, "dir");
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * How many serves may wait while one runs before the steward refuses more (HTTP 429); 4 by
     * default.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder maxWaitingServes(int v) {
      maxWaiting = Setting.atLeast("maxWaitingServes", v, 0, "must not be negative: ");
      return this;
    }

    /** Greedy decoding: deterministic (the default). */
    public Builder greedy() {
      temperature = 0;
      return this;
    }

    /**
     * Sampling at {@code temperature}: not deterministic.
     *
     * @throws JlamaEngineException with {@code INVALID_SAMPLING} unless 0 &lt; t &le; 2
     */
    public Builder sampling(float t) throws JlamaEngineException {
      if (!(t > 0 && t <= 2)) {
        throw new JlamaEngineException(
            JlamaEngineException.Reason.INVALID_SAMPLING, "temperature must be in (0, 2]: " + t);
      }
      temperature = t;
      return this;
    }

    /** Tells {@code progress} how far the weights digest (every byte, at build) has come. */
    public Builder digestProgress(ModelDirectory.Progress progress) {
      digestProgress = Objects.requireNonNull(progress, "progress");
      return this;
    }

    /**
     * Runs {@code hook} on the serving thread just before each forward pass, inside it as far as a
     * failure goes: a test throws there what Jlama may throw from a pass (a fault its worker
     * threads hand back wrapped), which no tiny model makes it throw on cue.
     */
    Builder beforeEachPass(Runnable hook) {
      beforeEachPass = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /** Lets the model's files be links out of the directory (a Hugging Face cache snapshot). */
    public Builder followLinks() {
      links = ModelDirectory.Links.FOLLOWED;
      return this;
    }

    /**
     * Digests, checks and loads the model.
     *
     * @throws JlamaEngineException {@code UNKNOWN_LAYOUT}, {@code UNSUPPORTED_MODEL} or {@code
     *     MODEL_UNREADABLE}
     */
    public JlamaEngine build() throws JlamaEngineException {
      return new JlamaEngine(this);
    }
  }
}
