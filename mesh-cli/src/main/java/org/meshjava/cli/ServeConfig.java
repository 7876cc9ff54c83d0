package org.meshjava.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.engine.jlama.JlamaEngineException;
import org.meshjava.engine.onnx.OnnxDecisionEngine;
import org.meshjava.engine.onnx.OnnxEngineException;
import org.meshjava.engine.onnx.OnnxModel;
import org.meshjava.openai.ApiKeyVariable;
import org.meshjava.openai.PrivateCaException;
import org.meshjava.openai.UpstreamEngine;

/**
 * The {@code mesh serve} configuration file: one JSON object. Every key is optional; flags given on
 * the command line win. Relative paths are read against the file's directory. Unknown keys are
 * refused, so a typo cannot silently fall back to a default; so are a duplicate key and text after
 * the object, so a setting cannot be read one of two ways.
 *
 * <pre>{@code
 * {
 *   "host": "127.0.0.1",            // bind address; loopback unless you mean otherwise
 *   "port": 8080,
 *   "key_file": "steward.key",      // from `mesh key generate`; absent: a fresh key per start
 *   "journal": "steward.journal",   // the decision journal (a file, or postgresql://…);
 *                                   // absent: in memory, survives nothing
 *   "revocations": "revoked.hex",   // revocations to load at start (`mesh grant revoke`), journalled
 *   "meter": "discover",            // or "estimator" (figures never depend on the machine)
 *   "rapl_root": "/host/powercap",  // where the powercap folder with the intel-rapl:* zones is
 *                                   // (default /sys/class/powercap); checked at start
 *   "default_joule_ceiling_uj": 1000000,   // ungranted requests that name none
 *   "max_body_bytes": 1048576,
 *   "max_concurrent_serves": 8,     // whole server; default: the sum of the backends' limits
 *   "body_deadline_s": 10,          // a body not complete by then is answered 408
 *   "header_deadline_s": 10,        // headers not complete this long after their first byte:
 *                                   // the connection is closed
 *   "write_timeout_s": 10,          // a stream whose client reads nothing this long is closed
 *   "delivery_timeout_s": 60,       // and one whose writes waited this long in all, though
 *                                   // its client reads a little before each write timeout;
 *                                   // so is one whose whole reply waited this long
 *   "engine_deadline_s": 120,       // a serve whose engine takes longer is refused
 *                                   // engine_failed, its grant debited the whole ceiling
 *                                   // (default: none, the engine takes as long as it takes)
 *   "max_connections": 10000,       // connections held at once (default: 10 000, or 3/4 of the
 *                                   // files the process may open)
 *   "max_buffered_body_bytes": N,   // request bodies being read, all together (default: a
 *                                   // quarter of the heap); beyond it 429 overloaded
 *   "refused_body_drain_bytes": 8388608, // of a body refused 413, read and discarded before
 *                                   // the close, so a client that sends it all before reading
 *                                   // reads the 413 (default 8 MiB; 0: close at once)
 *   "refused_body_drain_s": 3,      // and for at most this long after the 413 (default 3)
 *   "backends": [
 *     {"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40,
 *      "max_concurrent_serves": 2, "max_waiting_serves": 64}, // defaults: cores (>= 2), 64
 *     {"type": "upstream", "name": "llama", "base_url": "http://127.0.0.1:8000/v1",
 *      "model": "llama-3.1-8b-instruct", "fidelity": "F3", "uj_per_token": 2000,
 *      "api_key_env": "LLAMA_KEY", "deterministic": false, "timeout_s": 60,
 *      "max_concurrent_serves": 64,   // in flight to it at once (default 64); local engines: cores
 *      "trusted_certificates": "private-ca.pem"}, // https only: its TLS certificate is checked
 *                                   // against these PEM CA certificates alone, not the JVM's
 *     {"type": "onnx-minilm", "name": "minilm", "fidelity": "F2", "temperature": 0.05,
 *      "quantized": false},           // true: the int8 twin
 *     {"type": "jlama", "name": "llama-local", "model_dir": "models/TinyLlama-1.1B",
 *      "fidelity": "F2", "uj_per_token": 1000, "temperature": 0}   // 0: greedy, replayable
 *   ],
 *   "default_decision_engine": false, // add MiniLM beside the listed backends (default: only
 *                                    // when none are listed, beside the embedded defaults)
 *   "snapshots": {"every_records": 100000, "every_s": 0, "dir": "steward.journal.snapshots"}
 *                                    // journal snapshots (SPEC.md §60.8); false: none
 * }
 * }</pre>
 *
 * <p>Every backend also takes operator caps ({@link ServeLimits}): {@code "max_output_tokens"}
 * (default {@value #DEFAULT_MAX_OUTPUT_TOKENS}), {@code "max_prompt_tokens"} and {@code
 * "max_joule_ceiling_uj"} (default none). A request over a backend's cap is inadmissible there.
 */
record ServeConfig(
    Optional<String> host,
    Optional<Integer> port,
    Optional<Path> keyFile,
    Optional<String> journal,
    Optional<Path> revocations,
    Optional<String> meter,
    Optional<Path> raplRoot,
    Optional<Long> defaultJouleCeilingUj,
    Optional<Long> maxBodyBytes,
    Optional<Integer> maxConcurrentServes,
    Optional<Long> bodyDeadlineSeconds,
    Optional<Long> headerDeadlineSeconds,
    Optional<Long> writeTimeoutSeconds,
    Optional<Long> deliveryTimeoutSeconds,
    Optional<Long> engineDeadlineSeconds,
    Optional<Long> maxConnections,
    Optional<Long> maxBufferedBodyBytes,
    Optional<Long> refusedBodyDrainBytes,
    Optional<Long> refusedBodyDrainSeconds,
    List<ServingEngine> backends,
    Map<String, ServeLimits> caps,
    boolean defaultDecisionEngine,
    SnapshotConfig snapshots) {

  /**
   * Journal snapshots (SPEC.md §60.8), for a journal file or database: on unless {@code
   * "snapshots": false}.
   *
   * @param enabled whether the steward keeps snapshots
   * @param dir a directory to keep them in; absent: {@code <journal>.snapshots/} beside a journal
   *     file, the table {@code mesh_journal_snapshot} beside a journal in PostgreSQL
   * @param everyRecords a snapshot once this many records were written since the last (0: none by
   *     count)
   * @param everySeconds a snapshot this often (0: none by time)
   */
  record SnapshotConfig(boolean enabled, Optional<Path> dir, long everyRecords, long everySeconds) {
    static final SnapshotConfig DEFAULT = new SnapshotConfig(true, Optional.empty(), 100_000, 0);
  }

  /**
   * The output cap of a backend whose configuration sets none (and of the embedded defaults): a
   * long reply, not an unbounded one. Without it an ungranted {@code max_tokens} of ten million ran
   * for half a minute and returned 40 MB.
   */
  static final long DEFAULT_MAX_OUTPUT_TOKENS = 4096;

  /** The caps of a backend whose configuration sets none. */
  static final ServeLimits DEFAULT_CAP =
      ServeLimits.NONE.withMaxOutputTokens(DEFAULT_MAX_OUTPUT_TOKENS);

  /** The caps configured for {@code backend}, else {@link #DEFAULT_CAP}. */
  ServeLimits capOf(String backend) {
    return caps.getOrDefault(backend, DEFAULT_CAP);
  }

  static final Set<String> KEYS =
      Set.of(
          "host",
          "port",
          "key_file",
          "journal",
          "revocations",
          "meter",
          "rapl_root",
          "default_joule_ceiling_uj",
          "max_body_bytes",
          "max_concurrent_serves",
          "body_deadline_s",
          "header_deadline_s",
          "write_timeout_s",
          "delivery_timeout_s",
          "engine_deadline_s",
          "max_connections",
          "max_buffered_body_bytes",
          "refused_body_drain_bytes",
          "refused_body_drain_s",
          "backends",
          "default_decision_engine",
          "snapshots");

  /** The keys every backend entry takes, whatever its type. */
  static final Set<String> BACKEND_KEYS =
      Set.of(
          "type",
          "name",
          "fidelity",
          "uj_per_token",
          "uj_per_option_scored",
          "recipe",
          "max_output_tokens",
          "max_prompt_tokens",
          "max_joule_ceiling_uj");

  /**
   * The keys each backend type takes beside {@link #BACKEND_KEYS}. A key another type reads (a
   * {@code model_dir} on a reference entry) is as unknown as a typo: it would be ignored.
   */
  static final Map<String, Set<String>> BACKEND_TYPE_KEYS =
      Map.of(
          "reference",
          Set.of("work_per_token", "max_concurrent_serves", "max_waiting_serves"),
          "upstream",
          Set.of(
              "base_url",
              "model",
              "deterministic",
              "timeout_s",
              "max_concurrent_serves",
              "api_key_env",
              "trusted_certificates"),
          "onnx-minilm",
          Set.of("temperature", "quantized", "max_concurrent_serves", "max_waiting_serves"),
          "jlama",
          Set.of("model_dir", "temperature", "follow_links", "max_waiting_serves"));

  /** What an empty configuration file gives: every setting at its default. */
  static ServeConfig empty() {
    try {
      return of(JsonNodeFactory.instance.objectNode(), "the defaults", Path.of(""));
    } catch (CliException e) {
      throw new AssertionError("an empty configuration is valid", e);
    }
  }

  /**
   * The bearer token that environment variable {@code name} holds ({@code value}), refused in
   * {@link ApiKeyVariable}'s words (never the value, nor a name that may be the key) after {@code
   * where}.
   */
  static String apiKey(String name, @Nullable String value, String where) throws CliException {
    try {
      return ApiKeyVariable.value("api_key_env", name, value);
    } catch (IllegalArgumentException e) {
      throw new CliException(where + ": " + e.getMessage(), e);
    }
  }

  static ServeConfig read(Path file) throws CliException {
    JsonNode root;
    try {
      root = GrantFiles.readJson(file);
    } catch (CliException e) {
      if (!(e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException)) {
        throw e;
      }
      // A new user's usual mistake is a configuration in another format (YAML, the Spring
      // starter's application.properties): the parser's words name a token, not the format.
      throw new CliException(
          e.getMessage()
              + "; a mesh serve configuration is one JSON object, such as {\"journal\":"
              + " \"steward.journal\", \"port\": 8080} (YAML and .properties files are not read;"
              + " those are the Spring starter's)",
          e);
    }
    return of(
        root,
        file.toString(),
        java.util.Objects.requireNonNull(file.toAbsolutePath().getParent(), "a file has a folder"));
  }

  /**
   * The configuration {@code root} states; {@code file} names it in messages, and relative paths
   * are read against {@code dir}.
   */
  private static ServeConfig of(JsonNode root, String file, Path dir) throws CliException {
    if (!root.isObject()) {
      throw new CliException(file + ": the configuration is one JSON object");
    }
    SettingText.check(root, file);
    for (var e : root.properties()) {
      if (!KEYS.contains(e.getKey())) {
        throw new CliException(
            file
                + ": unknown key '"
                + SettingText.shown(e.getKey())
                + "'"
                + NearestKey.hint(e.getKey(), KEYS)
                + "; known: "
                + new java.util.TreeSet<>(KEYS));
      }
    }
    // Built so far: an entry or setting refused after an engine was built leaves none open.
    List<ServingEngine> backends = new ArrayList<>();
    try {
      return of(root, file, dir, backends);
    } catch (CliException | RuntimeException | Error e) {
      closeBuilt(backends, e);
      throw e;
    }
  }

  /**
   * The engines among {@code engines} that hold resources until closed: every {@link AutoCloseable}
   * one (an upstream's share of an HTTP client, one of its own with its threads where it trusts its
   * own CAs; an ONNX session's native memory; Jlama's model). The steward never closes the engines
   * it is given ({@code Steward.Builder#backend}), so whoever built them closes these, each owner
   * by its own rule for a close that fails.
   */
  static List<AutoCloseable> holdingResources(List<? extends ServingEngine> engines) {
    List<AutoCloseable> holding = new ArrayList<>();
    for (ServingEngine e : engines) {
      if (e instanceof AutoCloseable c) {
        holding.add(c);
      }
    }
    return List.copyOf(holding);
  }

  /**
   * Closes the engines among {@code built} that {@link #holdingResources hold resources}, whatever
   * closing the one before threw, each failure suppressed on {@code failed}. None of them has
   * served: the configuration that built them was refused, so no steward ever saw them.
   */
  static void closeBuilt(List<? extends ServingEngine> built, Throwable failed) {
    for (AutoCloseable engine : holdingResources(built)) {
      try {
        engine.close();
      } catch (Exception | Error x) {
        if (x instanceof InterruptedException) {
          Thread.currentThread().interrupt(); // kept for the caller, who is refusing anyway
        }
        failed.addSuppressed(x);
      }
    }
  }

  /** {@link #of(JsonNode, String, Path)}, adding each engine it builds to {@code backends}. */
  private static ServeConfig of(JsonNode root, String file, Path dir, List<ServingEngine> backends)
      throws CliException {
    try {
      Map<String, ServeLimits> caps = new HashMap<>();
      JsonNode bs = root.path("backends");
      if (!bs.isMissingNode() && !bs.isArray()) {
        throw new CliException(file + ": backends is an array");
      }
      for (int i = 0; i < bs.size(); i++) {
        // Every message about an entry names it, and the file once (the catch below adds it to
        // messages that lack it, so the entry's own are caught here first).
        String where = file + ": backends[" + i + "]";
        JsonNode b = bs.get(i);
        if (!b.isObject()) {
          throw new CliException(
              where + " is an object such as {\"type\": \"reference\", \"name\": \"small\"}");
        }
        try {
          ServingEngine engine = backend(b, where, dir);
          backends.add(engine);
          caps.put(engine.name(), cap(b));
        } catch (IllegalArgumentException | IllegalStateException e) {
          throw new CliException(where + ": " + e.getMessage(), e);
        }
      }
      return new ServeConfig(
          text(root, "host"),
          number(root, "port").map(ServeConfig::portNumber),
          text(root, "key_file").map(dir::resolve),
          // A file is relative to the configuration's folder; a postgresql:// URL stays as it is.
          text(root, "journal").map(j -> JournalTarget.isUrl(j) ? j : dir.resolve(j).toString()),
          text(root, "revocations").map(dir::resolve),
          text(root, "meter").map(ServeConfig::meterKind),
          text(root, "rapl_root").map(dir::resolve),
          number(root, "default_joule_ceiling_uj"),
          number(root, "max_body_bytes"),
          number(root, "max_concurrent_serves").map(v -> anInt("max_concurrent_serves", v)),
          number(root, "body_deadline_s").map(v -> positiveSeconds("body_deadline_s", v)),
          number(root, "header_deadline_s").map(v -> positiveSeconds("header_deadline_s", v)),
          number(root, "write_timeout_s").map(v -> positiveSeconds("write_timeout_s", v)),
          number(root, "delivery_timeout_s").map(v -> positiveSeconds("delivery_timeout_s", v)),
          number(root, "engine_deadline_s").map(v -> positiveSeconds("engine_deadline_s", v)),
          number(root, "max_connections"),
          number(root, "max_buffered_body_bytes"),
          number(root, "refused_body_drain_bytes"),
          number(root, "refused_body_drain_s").map(v -> positiveSeconds("refused_body_drain_s", v)),
          List.copyOf(backends),
          Map.copyOf(caps),
          bool(root, "default_decision_engine").orElse(backends.isEmpty()),
          snapshots(root.get("snapshots"), dir));
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    }
  }

  private static ServingEngine backend(JsonNode b, String where, Path dir) throws CliException {
    String type = text(b, "type").orElse("reference");
    if (type.equals("upstream")) {
      refuseUpstreamWeightClaims(b, where);
    }
    Set<String> typeKeys = BACKEND_TYPE_KEYS.get(type);
    if (typeKeys != null) {
      for (var e : b.properties()) {
        if (!BACKEND_KEYS.contains(e.getKey()) && !typeKeys.contains(e.getKey())) {
          java.util.TreeSet<String> known = new java.util.TreeSet<>(BACKEND_KEYS);
          known.addAll(typeKeys);
          throw new CliException(
              where
                  + ": unknown key '"
                  + SettingText.shown(e.getKey())
                  + "' for type '"
                  + type
                  + "'"
                  + NearestKey.hint(e.getKey(), known)
                  + "; known: "
                  + known);
        }
      }
    }
    String name = text(b, "name").orElseThrow(() -> new CliException(where + " has no name"));
    Fidelity fidelity = fidelity(text(b, "fidelity").orElse("F2"), where);
    // An entry that names no cost gets the engine builder's own default, read from the engine so
    // the two cannot drift (a jlama entry has always taken the reference engine's).
    CostProfile unset =
        type.equals("upstream")
            ? UpstreamEngine.DEFAULT_COST_PROFILE
            : ReferenceEngine.DEFAULT_COST_PROFILE;
    CostProfile cost =
        CostProfile.perToken(number(b, "uj_per_token").orElse(unset.ujPerToken()))
            .withOptionCost(number(b, "uj_per_option_scored").orElse(unset.ujPerOptionScored()));
    Optional<Recipe> recipe = text(b, "recipe").map(Recipe::of);
    switch (type) {
      case "reference" -> {
        ReferenceEngine.Builder rb =
            ReferenceEngine.builder()
                .name(name)
                .fidelity(fidelity)
                .costProfile(cost)
                .workPerToken(anInt("work_per_token", number(b, "work_per_token").orElse(16L)))
                .concurrency(localConcurrency(b, where));
        recipe.ifPresent(rb::recipe);
        return rb.build();
      }
      case "upstream" -> {
        UpstreamEngine.Builder ub =
            UpstreamEngine.builder()
                .name(name)
                .baseUri(
                    URI.create(
                        text(b, "base_url")
                            .orElseThrow(
                                () -> new CliException(where + " (upstream) has no base_url"))))
                .model(
                    text(b, "model")
                        .orElseThrow(() -> new CliException(where + " (upstream) has no model")))
                .fidelity(fidelity)
                .costProfile(cost)
                .deterministic(bool(b, "deterministic").orElse(false))
                .timeout(
                    Duration.ofSeconds(
                        number(b, "timeout_s")
                            .map(v -> positiveSeconds("timeout_s", v))
                            .orElse(60L)));
        recipe.ifPresent(ub::recipe);
        intAtLeast(b, "max_concurrent_serves", 1, where).ifPresent(ub::maxConcurrentServes);
        Optional<String> keyEnv = text(b, "api_key_env");
        if (keyEnv.isPresent()) {
          ub.apiKey(apiKey(keyEnv.get(), System.getenv(keyEnv.get()), where));
        }
        Optional<String> cas = text(b, "trusted_certificates");
        if (cas.isPresent()) {
          try {
            ub.trustedCertificates(dir.resolve(cas.get()));
          } catch (PrivateCaException e) {
            throw new CliException(
                where + " (upstream): trusted_certificates " + e.reason() + ": " + e.getMessage(),
                e);
          }
        }
        try {
          return ub.build();
        } catch (IllegalStateException e) {
          // Certificates for an http base_url: said naming the entry, as every other refusal here.
          throw new CliException(where + " (upstream): " + e.getMessage(), e);
        }
      }
      case "onnx-minilm" -> {
        try {
          OnnxDecisionEngine.Builder ob =
              OnnxDecisionEngine.builder().name(name).fidelity(fidelity).costProfile(miniLmCost(b));
          Optional<Double> temperature = decimal(b, "temperature");
          if (temperature.isPresent()) {
            ob.temperature(temperature.get());
          }
          ob.concurrency(localConcurrency(b, where));
          if (bool(b, "quantized").orElse(false)) {
            ob.model(OnnxModel.miniLmQuantized());
          }
          recipe.ifPresent(ob::recipe);
          return ob.build();
        } catch (OnnxEngineException e) {
          throw new CliException(where + ": " + e.getMessage(), e);
        }
      }
      case "jlama" -> {
        String named =
            text(b, "model_dir")
                .orElseThrow(() -> new CliException(where + " (jlama) has no model_dir"));
        Path modelDir = dir.resolve(named);
        if (!Files.isDirectory(modelDir)) {
          // Said here, where the setting is known: the engine's own refusal ("UNKNOWN_LAYOUT:
          // MISSING_FILE (.)") names neither it nor the folder a relative path is read from.
          throw new CliException(
              where
                  + " (jlama): model_dir '"
                  + named
                  + "' is not a folder: "
                  + modelDir.toAbsolutePath()
                  + (Path.of(named).isAbsolute()
                      ? ""
                      : " (a relative model_dir is read from the configuration file's folder)")
                  + "; name the folder that holds "
                  + JlamaEngine.MODEL_FILES);
        }
        try {
          JlamaEngine.Builder jb =
              JlamaEngine.builder(modelDir)
                  .name(name)
                  .fidelity(fidelity)
                  .costProfile(cost)
                  .digestProgress(new DigestProgressLine(name, System.err));
          double t = decimal(b, "temperature").orElse(0.0);
          if (t != 0) {
            jb.sampling((float) t);
          }
          if (bool(b, "follow_links").orElse(false)) {
            jb.followLinks();
          }
          // Jlama runs one serve at a time; this bounds the queue behind it (429 beyond it).
          intAtLeast(b, "max_waiting_serves", 0, where).ifPresent(jb::maxWaitingServes);
          recipe.ifPresent(jb::recipe);
          return jb.build();
        } catch (JlamaEngineException e) {
          throw new CliException(where + ": " + e.getMessage(), e);
        }
      }
      default ->
          throw new CliException(
              where
                  + ": unknown backend type '"
                  + type
                  + "' (reference, upstream, onnx-minilm or jlama)");
    }
  }

  /**
   * Refuses an upstream entry's weights claims: nothing on this host can check what an upstream
   * loads, so a typed digest would be sealed, and admitted under ModelIn, without anyone verifying
   * it (SPEC 70).
   */
  private static void refuseUpstreamWeightClaims(JsonNode b, String where) throws CliException {
    for (String claim : List.of("weights_digest", "precision")) {
      if (b.has(claim)) {
        throw new CliException(
            where
                + " (upstream): '"
                + claim
                + "' is not accepted: the"
                + " steward cannot verify an upstream's weights, so an upstream backend binds none");
      }
    }
  }

  /** The meter kinds {@code mesh serve} builds, checked here so a wrong one names the file. */
  private static String meterKind(String kind) {
    if (!kind.equals("discover") && !kind.equals("estimator")) {
      throw new IllegalArgumentException("meter '" + kind + "' is not discover or estimator");
    }
    return kind;
  }

  /** A TCP port, checked here so that one out of range names the file it came from. */
  private static int portNumber(long port) {
    if (port > 65_535) {
      throw new IllegalArgumentException("port must be 0-65535, not " + port);
    }
    return (int) port;
  }

  /**
   * The most seconds a time setting of {@code mesh serve} takes: a year. The server counts its
   * deadlines in milliseconds and nanoseconds, where a setting near {@code Long.MAX_VALUE} seconds
   * overflowed: a body deadline answered every request 500 {@code long overflow}, a header deadline
   * or write timeout failed the start with the JDK's words.
   */
  static final long MAX_SECONDS = 365L * 24 * 60 * 60;

  /**
   * A whole number an {@code int} setting takes, refused past {@link Integer#MAX_VALUE} rather than
   * wrapped (4294967297 is not 1).
   */
  private static int anInt(String key, long v) {
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          key + " must be at most " + Integer.MAX_VALUE + ", not " + v);
    }
    return (int) v;
  }

  private static long positiveSeconds(String key, long v) {
    if (v < 1 || v > MAX_SECONDS) {
      throw new IllegalArgumentException(
          key + " must be from 1 to " + MAX_SECONDS + " (a year), not " + v);
    }
    return v;
  }

  /** An int-valued key of a backend entry, at least {@code min} (0 or 1), when present. */
  private static Optional<Integer> intAtLeast(JsonNode b, String key, int min, String where)
      throws CliException {
    Optional<Long> v = number(b, key);
    if (v.isPresent() && (v.get() < min || v.get() > Integer.MAX_VALUE)) {
      throw new CliException(
          where + ": " + key + " must be a " + (min == 0 ? "non-negative" : "positive") + " int");
    }
    return v.map(Long::intValue);
  }

  /**
   * A local CPU engine's bounds under {@code mesh serve}: {@code max_concurrent_serves} at once
   * (default: the CPU count, at least 2) and {@code max_waiting_serves} more (default {@link
   * ServeCommand#LOCAL_WAITING_SERVES}); a serve beyond them is answered 429 at once.
   */
  private static ServeConcurrency localConcurrency(JsonNode b, String where) throws CliException {
    return new ServeConcurrency(
        intAtLeast(b, "max_concurrent_serves", 1, where).orElse(ServeConcurrency.cores()),
        intAtLeast(b, "max_waiting_serves", 0, where).orElse(ServeCommand.LOCAL_WAITING_SERVES));
  }

  /** A backend's caps: {@link #DEFAULT_CAP} with whatever the entry sets. */
  private static ServeLimits cap(JsonNode b) {
    ServeLimits cap = DEFAULT_CAP;
    Optional<Long> out = number(b, "max_output_tokens");
    if (out.isPresent()) {
      cap = cap.withMaxOutputTokens(out.get());
    }
    Optional<Long> in = number(b, "max_prompt_tokens");
    if (in.isPresent()) {
      cap = cap.withMaxPromptTokens(in.get());
    }
    Optional<Long> ceiling = number(b, "max_joule_ceiling_uj");
    if (ceiling.isPresent()) {
      cap = cap.withMaxJouleCeilingUj(ceiling.get());
    }
    return cap;
  }

  /**
   * An {@code onnx-minilm} entry's cost: each cost it names, and the registered MiniLM engine's
   * ({@link ServeCommand#MINILM_COST}) for each it leaves out, so that naming only {@code
   * uj_per_token} does not price a scored option at nothing.
   */
  static CostProfile miniLmCost(JsonNode b) {
    return CostProfile.perToken(
            number(b, "uj_per_token").orElse(ServeCommand.MINILM_COST.ujPerToken()))
        .withOptionCost(
            number(b, "uj_per_option_scored").orElse(ServeCommand.MINILM_COST.ujPerOptionScored()));
  }

  static Fidelity fidelity(String text, String where) throws CliException {
    return Fidelity.parse(text)
        .orElseThrow(() -> new CliException(where + ": fidelity '" + text + "' is not F0-F4"));
  }

  private static SnapshotConfig snapshots(@Nullable JsonNode n, Path dir) {
    if (n == null || n.isNull()) {
      return SnapshotConfig.DEFAULT;
    }
    if (n.isBoolean()) {
      return n.asBoolean()
          ? SnapshotConfig.DEFAULT
          : new SnapshotConfig(false, Optional.empty(), 0, 0);
    }
    if (!n.isObject()) {
      throw new IllegalArgumentException("snapshots is an object, or false");
    }
    for (var e : n.properties()) {
      Set<String> known = Set.of("every_records", "every_s", "dir");
      if (!known.contains(e.getKey())) {
        throw new IllegalArgumentException(
            "snapshots: unknown key '"
                + SettingText.shown(e.getKey())
                + "'"
                + NearestKey.hint(e.getKey(), known)
                + "; known: every_records, every_s, dir");
      }
    }
    return new SnapshotConfig(
        true,
        text(n, "dir").map(dir::resolve),
        number(n, "every_records").orElse(SnapshotConfig.DEFAULT.everyRecords()),
        number(n, "every_s").orElse(SnapshotConfig.DEFAULT.everySeconds()));
  }

  private static Optional<String> text(JsonNode n, String key) {
    return typed(n, key, JsonNode::isTextual, "a string", JsonNode::asText);
  }

  /**
   * A {@code true} or {@code false}; anything else is refused rather than read as Jackson would
   * ({@code "yes"} as false, {@code 1} as true).
   */
  private static Optional<Boolean> bool(JsonNode n, String key) {
    return typed(n, key, JsonNode::isBoolean, "true or false", JsonNode::asBoolean);
  }

  /** A JSON number; text such as {@code "0.5"} is refused rather than read as 0. */
  private static Optional<Double> decimal(JsonNode n, String key) {
    return typed(n, key, JsonNode::isNumber, "a number", JsonNode::asDouble);
  }

  private static Optional<Long> number(JsonNode n, String key) {
    return typed(
        n,
        key,
        v -> v.isIntegralNumber() && v.canConvertToLong() && v.asLong() >= 0,
        "a non-negative whole number",
        JsonNode::asLong);
  }

  /**
   * The value of {@code key} read by {@code read}, absent when the key is missing or {@code null};
   * a value {@code fits} refuses is named with what it {@code must} be, never read as a default.
   */
  private static <T> Optional<T> typed(
      JsonNode n,
      String key,
      java.util.function.Predicate<JsonNode> fits,
      String must,
      java.util.function.Function<JsonNode, T> read) {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    if (!fits.test(v)) {
      throw new IllegalArgumentException(key + " must be " + must);
    }
    return Optional.of(read.apply(v));
  }
}
