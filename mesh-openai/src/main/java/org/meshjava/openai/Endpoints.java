package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.router.NoAdmissibleBackendException;
import org.meshjava.steward.GrantDeniedException;
import org.meshjava.steward.GrantsSuspendedException;
import org.meshjava.steward.NotIssuerException;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.steward.Streamer;
import org.meshjava.steward.WitnessAnswer;
import org.meshjava.steward.WitnessVerdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binding's endpoints, free of HTTP plumbing: a method, a path and the body's bytes in, a
 * {@link Reply} out. Every failure becomes an OpenAI error reply; nothing escapes.
 *
 * <p>Thread-safe: serves run concurrently, at most {@code maxConcurrentServes} at once over the
 * whole server and at most each backend's own limit on that backend (the steward's {@code
 * OVERLOADED}); beyond either a serve is answered 429 with {@code Retry-After} at once rather than
 * queued, so a client backs off instead of holding a connection open.
 */
final class Endpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Endpoints.class);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * Strict: a duplicate key or trailing text is refused, so that the server cannot read a signed
   * body differently from the caller who derived its request id.
   */
  static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .disable(JsonParser.Feature.ALLOW_COMMENTS)
          .build();

  private final Steward steward;
  private final long defaultCeilingUj;
  private final Semaphore serves;
  private final LogEndpoints log;
  private final Optional<ConsoleFeed> console;
  private final Consumer<ServeResult> afterSeal;

  /** The backends whose description failed and was logged, each logged once. */
  private final java.util.Set<String> undescribed =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  Endpoints(Steward steward, long defaultCeilingUj, int maxConcurrentServes) {
    this(steward, defaultCeilingUj, maxConcurrentServes, Optional.empty(), result -> {});
  }

  /**
   * @param console where sealed serves are fed for the operator console, when it is enabled
   * @param afterSeal told of each sealed serve before its reply is made: a test's stand-in for a
   *     bug of ours met after the seal, which no client request can cause
   */
  Endpoints(
      Steward steward,
      long defaultCeilingUj,
      int maxConcurrentServes,
      Optional<ConsoleFeed> console,
      Consumer<ServeResult> afterSeal) {
    for (ServingEngine e : steward.backends()) {
      retrievable(e.name());
    }
    this.steward = steward;
    this.defaultCeilingUj = defaultCeilingUj;
    this.serves = new Semaphore(maxConcurrentServes);
    this.log = new LogEndpoints(steward);
    this.console = console;
    this.afterSeal = afterSeal;
  }

  /** Feeds a sealed serve to the console, when it is enabled. */
  private void sealed(ServeResult result, Optional<Presentation> presentation) {
    afterSeal.accept(result);
    console.ifPresent(c -> c.served(steward.clock().millis(), result, presentation));
  }

  Reply handle(String method, String path, byte[] body) {
    return handle(method, path, "", body, RequestId.next());
  }

  /**
   * Whether a POST to {@code path} reads a JSON body, so that one not declared as JSON can be
   * refused (415) before it is read. A POST anywhere else is answered from its path alone (404 for
   * no endpoint, 405 for a read-only one): an SDK action with no body, such as the Node SDK's
   * {@code responses.cancel}, sends no {@code Content-Type}, and telling it to send JSON names the
   * wrong fault.
   */
  static boolean readsBody(String path) {
    return switch (path) {
      case "/v1/chat/completions",
          "/v1/responses",
          "/v1/mesh/witness",
          "/v1/mesh/revocations",
          "/v1/mesh/checkpoint" ->
          true;
      default -> false;
    };
  }

  /**
   * Answers one request.
   *
   * @param requestId the request's {@code x-request-id}, which an internal error's log line and
   *     answer name
   */
  Reply handle(String method, String path, String query, byte[] body, String requestId) {
    try {
      return switch (path) {
        case "/v1/chat/completions" ->
            post(
                method,
                () -> serve(body, GrantedServeRequest.Endpoint.CHAT_COMPLETIONS, requestId));
        case "/v1/responses" ->
            post(method, () -> serve(body, GrantedServeRequest.Endpoint.RESPONSES, requestId));
        case "/v1/mesh/witness" -> post(method, () -> witness(body));
        case "/v1/mesh/revocations" -> post(method, () -> revocation(body));
        case "/v1/models" -> get(method, this::models);
        case "/v1/mesh/steward" -> get(method, this::stewardInfo);
        case "/v1/mesh/checkpoint" ->
            switch (method) {
              case "POST" -> post(method, () -> logged(() -> log.cosign(parse(body))));
              case "GET" -> get(method, () -> logged(log::checkpoint));
              default -> ErrorReply.methodNotAllowed("GET, POST", method);
            };
        case "/v1/mesh/proof/inclusion" -> get(method, () -> logged(() -> log.inclusion(query)));
        case "/v1/mesh/proof/consistency" ->
            get(method, () -> logged(() -> log.consistency(query)));
        // The asterisk-form target, which only OPTIONS may send (RFC 9112 §3.2.4), asks about the
        // server as a whole (RFC 9110 §9.3.7). Not 404, since OPTIONS on any path is 405:
        // OPTIONS is served nowhere, so the server's answer is the same 405, its Allow naming
        // the methods the server serves on some path.
        case "*" ->
            ErrorReply.invalid(
                    405,
                    "method_not_allowed",
                    method
                        + " * is not served, nor is OPTIONS on any path; this server answers GET,"
                        + " HEAD and POST")
                .allowing(SERVER_METHODS);
        default ->
            path.startsWith(MODELS_PREFIX)
                ? get(method, () -> model(modelId(path.substring(MODELS_PREFIX.length()))))
                : ErrorReply.invalid(404, "not_found", "no endpoint at " + path);
      };
    } catch (RuntimeException e) {
      ThrowableWords.log(
          e,
          t -> LOG.error("internal error answering {} {} ({})", method, path, requestId, t),
          kind ->
              LOG.error(
                  "internal error answering {} {} ({}): {}, which cannot be printed",
                  method,
                  path,
                  requestId,
                  kind));
      return ErrorReply.internalError(requestId);
    }
  }

  private interface Handler {
    Reply answer() throws BindingException;
  }

  private interface LogHandler {
    Reply answer() throws BindingException, ServeException, LogException;
  }

  /**
   * A transparency-log answer; a checkpoint that cannot be journalled is answered by reason, a log
   * that can no longer be read 503 {@code log_unreadable}.
   */
  private static Reply logged(LogHandler h) throws BindingException {
    try {
      return h.answer();
    } catch (ServeException e) {
      return byReason(e);
    } catch (LogException e) {
      return LogEndpoints.refusal(e, null);
    }
  }

  private static Reply post(String method, Handler h) {
    return only("POST", method, h);
  }

  private static Reply get(String method, Handler h) {
    return only("GET", method, h);
  }

  private static Reply only(String allowed, String method, Handler h) {
    if (!allowed.equals(method)) {
      return ErrorReply.methodNotAllowed(allowed, method);
    }
    try {
      return h.answer();
    } catch (BindingException e) {
      return ErrorReply.of(e);
    }
  }

  /**
   * Jackson's messages name its own configuration: the limit behind a figure ("(1000, from {@code
   * StreamReadConstraints.getMaxNestingDepth()})"), the Java type it was reading into, the feature
   * that would have let a refused token through ("enable {@code
   * JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS} to allow", which reads as advice a client cannot
   * follow), and the one that keeps the body out of a location ("[Source: REDACTED ({@code
   * StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION} disabled); line: 1, column: 1]"). None of it
   * means anything to a client; what was wrong and where stay.
   */
  static String withoutParserInternals(String message) {
    return message
        .replaceAll(", from `[^`]*`", "")
        .replaceAll(": enable `[^`]*` to allow", "")
        .replaceAll(" \\(bound as `[^`]*`\\)", "")
        .replaceAll(": not allowed as per `[^`]*`", "")
        .replaceAll(" \\(not recognized as one since Feature '[^']*' not enabled for parser\\)", "")
        // A body cut short: where the open object or array began, behind the setting that keeps
        // the body's text out of the message.
        .replaceAll("\\[Source: [^;\\]]*; (line: \\d+, column: \\d+)\\]", "$1");
  }

  static JsonNode parse(byte[] body) throws BindingException {
    Utf8Body.check(body);
    try {
      JsonNode node = STRICT.readTree(body);
      if (node == null || !node.isObject()) {
        throw new BindingException(
            BindingException.Reason.NOT_JSON, null, "the body must be one JSON object");
      }
      return node;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new BindingException(
          BindingException.Reason.NOT_JSON,
          null,
          "the body is not valid JSON: " + withoutParserInternals(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new BindingException(
          BindingException.Reason.NOT_JSON, null, "the body cannot be read: " + e.getMessage());
    }
  }

  // ---- GET /v1/models, GET /v1/mesh/steward ---------------------------------------------------

  private Reply models() {
    return new Reply.Json(200, modelList());
  }

  /** {@code GET /v1/models/{model}}: one entry of the list, as OpenAI's retrieve answers it. */
  private Reply model(String id) {
    for (com.fasterxml.jackson.databind.JsonNode m : modelList().get("data")) {
      if (m.get("id").asText().equals(id)) {
        return new Reply.Json(200, m);
      }
    }
    return ErrorReply.invalid(
        404,
        "model_not_found",
        "The model `" + id + "` does not exist; GET /v1/models lists the names this steward serves",
        Optional.of("model"));
  }

  private static final String MODELS_PREFIX = "/v1/models/";

  /**
   * Whether {@code rawPath}, as the client wrote it, is {@code /v1/models/} followed by one
   * segment: a model id, where a {@code ;} is part of the id and no parameter. The Node SDK leaves
   * a {@code ;} in an id unescaped (RFC 3986 §3.3 allows it in a segment), so an id such as {@code
   * ft:m;v=2} reaches the server raw; the id is then read from the path as written, never with
   * Jetty's {@code ;…} stripped, so it names the model a proxy in front read too.
   */
  static boolean namesOneModel(String rawPath) {
    return rawPath.startsWith(MODELS_PREFIX) && rawPath.indexOf('/', MODELS_PREFIX.length()) < 0;
  }

  /**
   * Refuses a backend name that {@code GET /v1/models/{model}} could never reach, which {@code GET
   * /v1/models} would list all the same. Both official SDKs send a backslash as {@code %5C}, and
   * the server refuses it in a path, raw or escaped (a proxy in front may read it as {@code /}); a
   * name that is {@code .} or {@code ..} is a dot segment, refused raw and as {@code %2e} alike.
   * Only this binding cannot serve such a name: a receipt may still carry it, so the rule lives
   * here and not in the engine's or the receipt's.
   *
   * @throws IllegalArgumentException naming the backend and why, for such a name
   */
  static void retrievable(String backend) {
    String why =
        backend.indexOf('\\') >= 0
            ? "holds a backslash, which no request path here may hold (an SDK sends it as %5C,"
                + " refused 400)"
            : backend.equals(".") || backend.equals("..")
                ? "is a dot segment, which no request path here may hold (refused 400, raw or as"
                    + " %2e)"
                : null;
    if (why != null) {
      throw new IllegalArgumentException(
          "backend '"
              + backend
              + "' "
              + why
              + ", so GET /v1/models/{model} could never retrieve it although GET /v1/models"
              + " lists it: rename the backend");
    }
  }

  /** Every method the API serves on some path: its {@code Allow} for a target that is no path. */
  static final String SERVER_METHODS = "GET, HEAD, POST";

  /**
   * The model id a {@code /v1/models/{model}} path names, percent-decoded as UTF-8: an OpenAI SDK
   * encodes the id as one path segment (the Node SDK turns {@code /}, a space, {@code %} and the
   * like into {@code %XX}; {@code +} stays as it is), and the server hands the path over still
   * encoded. A segment that does not decode is looked up as it came (and so not found).
   */
  static String modelId(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    try {
      // URLDecoder decodes a form, where '+' is a space; in a path it is itself.
      return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return segment;
    }
  }

  private ObjectNode modelList() {
    ObjectNode root = NODES.objectNode();
    root.put("object", "list");
    ArrayNode data = root.putArray("data");
    // Each described backend's name and recipe, read once: a backend answering once and failing
    // the next time is listed as it first answered.
    java.util.Map<String, List<String>> recipes = new java.util.LinkedHashMap<>();
    for (ServingEngine e : steward.backends()) {
      // As registered: what a request's model is matched against and its receipts name.
      String name = steward.backendName(e);
      ObjectNode entry;
      try {
        entry = described(e, name);
      } catch (RuntimeException failed) {
        // One backend whose description fails must not fail the list for every client; the
        // operator reads why, once per backend (the list is asked for often). The throw is the
        // backend's, and so are its words, read safely: throwing here would fail the list anyway.
        if (undescribed.add(name)) {
          LOG.warn(
              "backend {} left out of /v1/models: describing it failed: {}",
              name,
              ThrowableWords.describe(failed));
        }
        continue;
      }
      data.add(entry);
      recipes
          .computeIfAbsent(
              entry.path("mesh").path("recipe").asText(), r -> new java.util.ArrayList<>())
          .add(name);
    }
    // Then what else a body's model may name: the reserved name, and each recipe that is not
    // also a backend's name, with the backends serving it.
    ObjectNode auto = model(data, GrantedServeRequest.AUTO);
    auto.putObject("mesh").put("kind", "auto");
    for (var r : recipes.entrySet()) {
      if (steward.backends().stream().noneMatch(e -> steward.backendName(e).equals(r.getKey()))
          && !r.getKey().equals(GrantedServeRequest.AUTO)) {
        ObjectNode mesh = model(data, r.getKey()).putObject("mesh");
        mesh.put("kind", "recipe");
        ArrayNode backends = mesh.putArray("backends");
        r.getValue().forEach(backends::add);
      }
    }
    return root;
  }

  /**
   * A backend's entry in the model list, under its registered {@code name}, from what it says of
   * itself.
   *
   * @throws RuntimeException whatever the backend's accessors throw
   */
  private static ObjectNode described(ServingEngine e, String name) {
    ObjectNode entry = entry(name);
    ObjectNode mesh = entry.putObject("mesh");
    mesh.put("fidelity", e.fidelity().name());
    mesh.put("recipe", e.recipe().name());
    Optional<WeightsBinding> w = e.weights();
    if (w.isPresent()) {
      mesh.put("weights_digest", w.get().digest().hex());
      mesh.put("precision", w.get().precision());
    } else {
      mesh.putNull("weights_digest");
      mesh.putNull("precision");
    }
    mesh.put("uj_per_token", e.costProfile().ujPerToken());
    mesh.put("uj_per_option_scored", e.costProfile().ujPerOptionScored());
    mesh.put("deterministic", e.deterministic());
    mesh.put("tokenizer", e.tokenizer().name());
    mesh.put("token_accounting", e.tokenAccounting().name());
    mesh.put("kind", "backend");
    return entry;
  }

  private static ObjectNode model(ArrayNode data, String id) {
    ObjectNode m = entry(id);
    data.add(m);
    return m;
  }

  /** A model list's entry for {@code id}, its OpenAI fields only. */
  private static ObjectNode entry(String id) {
    ObjectNode m = NODES.objectNode();
    m.put("id", id);
    m.put("object", "model");
    m.put("created", 0);
    m.put("owned_by", "mesh");
    return m;
  }

  private Reply stewardInfo() {
    ObjectNode root = NODES.objectNode();
    root.put("did", steward.identity().value());
    root.put(
        "grants_honoured",
        steward.grantsSuspended().isEmpty() && steward.grantsNeedDurableJournal().isEmpty());
    steward.grantsNeedDurableJournal().ifPresent(s -> root.put("grants_need_durable_journal", s));
    steward.grantsSuspended().ifPresent(s -> root.put("grants_suspended", s));
    root.put("unresolved", steward.unresolved().size());
    root.put("next_sequence", steward.head().nextSequence());
    return new Reply.Json(200, root);
  }

  // ---- POST /v1/mesh/witness ------------------------------------------------------------------

  private Reply witness(byte[] bytes) throws BindingException {
    JsonNode body = parse(bytes);
    JsonNode receiptJson = body.get("receipt");
    if (receiptJson == null || !receiptJson.isObject()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "receipt",
          "receipt must be the receipt object a response's usage.energy carried");
    }
    String envelopeHex =
        text(body, "envelope_hex", "the envelope hex a response's usage.energy carried");
    // Each field is read on its own, so a refusal's param names the field at fault.
    MeshReceipt receipt;
    try {
      receipt = ReceiptJson.parse(receiptJson);
    } catch (ReceiptException | IllegalArgumentException e) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, "receipt", "not a receipt: " + e.getMessage());
    }
    Envelope envelope;
    try {
      envelope = Envelope.fromHex(envelopeHex);
    } catch (IllegalArgumentException e) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "envelope_hex",
          "not a receipt envelope: " + e.getMessage());
    }
    WitnessAnswer answer;
    try {
      answer = steward.witnessed(receipt, envelope);
    } catch (ReceiptException e) {
      return ErrorReply.invalid(
          422,
          "not_evidence",
          "the receipt is no evidence about this steward: " + e.getMessage(),
          Optional.of("receipt"));
    } catch (LogException e) {
      // The log cannot be read (SPEC 60.8): no verdict either way, and nothing changed.
      return LogEndpoints.refusal(e, null);
    }
    if (answer.verdict() == WitnessVerdict.HELD) {
      ObjectNode ok = NODES.objectNode();
      ok.put("held", true);
      ok.put("sequence", receipt.sequence());
      answer.proof().ifPresent(p -> LogEndpoints.describe(p, ok));
      return new Reply.Json(200, ok);
    }
    Reply.Json notHeld =
        ErrorReply.of(
            409,
            "conflict_error",
            "receipt_not_held",
            "the journal does not hold receipt "
                + receipt.sequence()
                + " with this envelope; records were cut or changed after it was handed out, and"
                + " grants are refused from now on",
            Optional.of("receipt"));
    // Showing the same receipt again finds the same journal.
    return notHeld.futile();
  }

  // ---- POST /v1/mesh/revocations --------------------------------------------------------------

  /** An issuer's signed revocation (SPEC.md 30 §11): verified, journalled, then in effect. */
  private Reply revocation(byte[] bytes) throws BindingException {
    String hex = text(parse(bytes), "revocation", "the hex line `mesh grant revoke` writes");
    Revocation r;
    try {
      r = Revocation.fromHex(hex);
    } catch (MalformedGrantException e) {
      return ErrorReply.invalid(
          400,
          "malformed_revocation",
          "not a revocation: " + e.getMessage(),
          Optional.of("revocation"));
    }
    boolean recorded;
    try {
      recorded = steward.revoke(r);
    } catch (GrantRefusedException e) {
      return ErrorReply.of(
          403,
          "permission_error",
          e.label().wire(),
          "the revocation is refused: " + e.getMessage(),
          Optional.of("revocation"));
    } catch (ServeException e) {
      return byReason(e);
    }
    ObjectNode ok = NODES.objectNode();
    ok.put("revoked", r.grantId().hex());
    ok.put("revoked_from", r.from().getEpochSecond());
    ok.put("recorded", recorded);
    return new Reply.Json(200, ok);
  }

  // ---- POST /v1/chat/completions, POST /v1/responses ------------------------------------------

  /**
   * What a served body asks, read before anything is served.
   *
   * @param body the body's JSON tree
   */
  record Asked(
      StreamSettings settings,
      Optional<Presentation> presentation,
      ServeRequest request,
      PromptText prompt,
      Optional<DecisionBody> decision,
      JsonNode body) {}

  /**
   * Reads a served body as a JSON tree, every check in the order that decides which refusal a body
   * with several faults gets. Apart from {@link #serve} so that mesh-bench's {@code
   * RequestReadBenchmark} measures exactly this.
   *
   * @param defaultCeilingUj the ceiling of an ungranted body that names none
   */
  static Asked read(byte[] bytes, GrantedServeRequest.Endpoint endpoint, long defaultCeilingUj)
      throws BindingException {
    JsonNode body = parse(bytes);
    StreamSettings settings = StreamSettings.of(body, endpoint);
    Optional<Presentation> presentation = presentation(GrantedServeRequest.presentationHex(body));
    ServeRequest request =
        GrantedServeRequest.derive(
            body,
            endpoint,
            presentation.isPresent() ? OptionalLong.empty() : OptionalLong.of(defaultCeilingUj));
    UnservedOptions.check(body, endpoint);
    // Routed once, by the steward; the engine it routes to tokenizes the prompt text.
    Prompt prompt = GrantedServeRequest.prompt(body, endpoint);
    return new Asked(
        settings,
        presentation,
        request,
        PromptText.of(prompt.bytes()),
        DecisionBody.of(body, endpoint),
        body);
  }

  /** The presentation a body's {@code jcp_presentation} holds. */
  private static Optional<Presentation> presentation(Optional<String> hex) throws BindingException {
    if (hex.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Presentation.fromHex(hex.get()));
    } catch (MalformedGrantException e) {
      throw new BindingException(
          BindingException.Reason.MALFORMED_PRESENTATION,
          "jcp_presentation",
          "jcp_presentation is not a presentation: " + e.getMessage());
    }
  }

  private Reply serve(byte[] bytes, GrantedServeRequest.Endpoint endpoint, String requestId)
      throws BindingException {
    Asked asked = read(bytes, endpoint, defaultCeilingUj);
    ServeRequest request = asked.request();
    Optional<Presentation> presentation = asked.presentation();
    JsonNode body = asked.body();
    if (request.model().isPresent() && !steward.serves(request.model().get())) {
      return ErrorReply.invalid(
          404,
          "model_not_found",
          "The model `"
              + request.model().get()
              + "` does not exist; GET /v1/models lists the"
              + " names this steward serves, and `"
              + GrantedServeRequest.AUTO
              + "` routes over all of them",
          Optional.of("model"));
    }
    PromptText prompt = asked.prompt();
    Optional<DecisionBody> decision = asked.decision();
    UnservedOptions.refuseStreamedDecision(body, decision.isPresent());
    if (!serves.tryAcquire()) {
      return overloaded("the server is serving as many requests as it may; retry shortly");
    }
    if (decision.isPresent()) {
      try {
        return decided(
            body,
            request,
            new DecisionPrompt(decision.get().questions(), prompt),
            decision.get(),
            presentation,
            endpoint);
      } finally {
        serves.release();
      }
    }
    if (asked.settings().stream()) {
      boolean usageChunk = asked.settings().usageChunk();
      return new Reply.Streamed(
          channel ->
              streamed(
                  body, request, prompt, presentation, endpoint, usageChunk, channel, requestId));
    }
    ServeResult result;
    try {
      result = generate(request, prompt, presentation, Streamer.NONE);
    } catch (ServeException e) {
      return refusal(e, presentation.isPresent());
    } finally {
      serves.release();
    }
    sealed(result, presentation);
    Generated out = Generated.of(request, result);
    return whole(endpoint, body, result, out.text(), out.cut(), Optional.empty());
  }

  /** Serves a generation, on the body's presentation when it carried one. */
  private ServeResult generate(
      ServeRequest request,
      PromptText prompt,
      Optional<Presentation> presentation,
      Streamer streamer)
      throws ServeException {
    return presentation.isPresent()
        ? steward.serve(request, prompt, presentation.get(), streamer)
        : steward.serve(request, prompt, streamer);
  }

  /**
   * What a sealed generation says: its output as the steward decoded it with the backend that
   * served it, before the serve was debited or sealed (so a tokenizer that cannot decode it refused
   * the serve, never failed a reply after its receipt), and whether {@code max_tokens} cut it (the
   * finish reason {@code length}).
   */
  private record Generated(String text, boolean cut) {
    static Generated of(ServeRequest request, ServeResult result) {
      return new Generated(decoded(result), result.outcome().tokensOut() >= request.maxTokens());
    }

    /** The steward decodes every generation served on prompt text, which is all this serves. */
    static String decoded(ServeResult result) {
      return result.text().orElseThrow(() -> new IllegalStateException("no text decoded"));
    }
  }

  /**
   * A whole (not streamed) reply to {@code body} in the endpoint's wire format, created now, with a
   * typed decision's {@code mesh_decision} last when one was asked.
   */
  private Reply.Json whole(
      GrantedServeRequest.Endpoint endpoint,
      JsonNode body,
      ServeResult result,
      String text,
      boolean cut,
      Optional<JsonNode> decision) {
    long created = steward.clock().instant().getEpochSecond();
    return endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS
        ? Completions.reply(result, text, cut, created, decision)
        : Responses.reply(body, result, text, cut, created, decision);
  }

  /**
   * Serves a typed decision: the reply's content is the JSON of the most probable option per
   * question, and {@code mesh_decision} beside it carries every option's probability.
   */
  private Reply decided(
      JsonNode body,
      ServeRequest request,
      DecisionPrompt prompt,
      DecisionBody asked,
      Optional<Presentation> presentation,
      GrantedServeRequest.Endpoint endpoint) {
    ServeResult result;
    try {
      result =
          presentation.isPresent()
              ? steward.serve(request, prompt, presentation.get())
              : steward.serve(request, prompt);
    } catch (ServeException e) {
      return refusal(e, presentation.isPresent());
    }
    sealed(result, presentation);
    return whole(
        endpoint,
        body,
        result,
        asked.content(result.answers()),
        false,
        Optional.of(asked.probabilities(result.answers())));
  }

  /**
   * Serves while streaming: the opening events are made once the steward has routed and go out with
   * the first piece of text (an engine failing before it is refused as a whole request would be),
   * each piece of text as the engine produces its tokens, the receipt at the end. A client that
   * goes away stops the engine (the next send fails and the sink answers false); the steward still
   * seals and journals what was produced. Runs on the serving thread and releases the concurrency
   * permit the caller took.
   */
  private Optional<Reply> streamed(
      JsonNode body,
      ServeRequest request,
      PromptText prompt,
      Optional<Presentation> presentation,
      GrantedServeRequest.Endpoint endpoint,
      boolean usageChunk,
      Reply.Channel channel,
      String requestId) {
    try {
      long created = steward.clock().instant().getEpochSecond();
      StreamedReply reply =
          endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS
              ? new Completions.Stream(channel, created, usageChunk)
              : new Responses.Stream(body, channel, created);
      try {
        return produce(reply, request, prompt, presentation);
      } catch (RuntimeException | Error e) {
        // Our bug, met while the stream was produced (the serve may be sealed by then: its closing
        // events failing to render or to go out), an Error of any kind included (a class failing
        // to initialise, an assertion), or the JVM failing (an engine's OutOfMemoryError, passed
        // once its serve was settled). Caught here: left to Jetty, it is logged at debug only and
        // cuts the stream with no error event, which a client cannot tell from a dropped line.
        ThrowableWords.log(
            e,
            t -> LOG.error("internal error streaming {} ({})", endpoint, requestId, t),
            kind ->
                LOG.error(
                    "internal error streaming {} ({}): {}, which cannot be printed",
                    endpoint,
                    requestId,
                    kind));
        Reply.Json failed = ErrorReply.internalError(requestId);
        if (!reply.started()) {
          return Optional.of(failed);
        }
        reply.fail((ObjectNode) failed.body());
        return Optional.empty();
      }
    } finally {
      serves.release();
    }
  }

  /** Serves a streamed generation onto {@code reply}; the refusal to write when none was sent. */
  private Optional<Reply> produce(
      StreamedReply reply,
      ServeRequest request,
      PromptText prompt,
      Optional<Presentation> presentation) {
    TextDeltas[] deltas = new TextDeltas[1];
    Streamer streamer =
        route -> {
          deltas[0] = new TextDeltas(route.chosen().tokenizer());
          reply.open(route);
          return deltas[0].sink(reply::delta);
        };
    ServeResult result;
    try {
      result = generate(request, prompt, presentation, streamer);
    } catch (ServeException e) {
      Reply.Json refused = refusal(e, presentation.isPresent());
      if (!reply.started()) {
        return Optional.of(refused);
      }
      reply.fail((ObjectNode) refused.body());
      return Optional.empty();
    }
    sealed(result, presentation);
    Generated out = Generated.of(request, result);
    reply.finish(result, deltas[0].finish(out.text()), out.text(), out.cut());
    return Optional.empty();
  }

  /**
   * The string {@code field} of {@code body}.
   *
   * @param mustBe what the field must be, for the refusal when it is missing or not a string
   */
  static String text(JsonNode body, String field, String mustBe) throws BindingException {
    JsonNode v = body.get(field);
    if (v == null || !v.isTextual()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, field, field + " must be " + mustBe);
    }
    return v.asText();
  }

  /**
   * The reply to a refused serve.
   *
   * @param granted whether the serve was asked on a presentation
   */
  static Reply.Json refusal(ServeException e, boolean granted) {
    Reply.Json reply = refusal(e);
    return e.resendFutile(granted) ? reply.futile() : reply;
  }

  static Reply.Json refusal(ServeException e) {
    return switch (e) {
      case NotIssuerException n -> grantRefused(401, "authentication_error", n.label().wire(), e);
      // Bytes that are no presentation are a bad request wherever they are found (SPEC 30 §9).
      case GrantDeniedException d when d.label() == DenialLabel.MALFORMED ->
          grantRefused(400, "invalid_request_error", "malformed_presentation", e);
      case GrantDeniedException d -> grantRefused(403, "permission_error", d.label().wire(), e);
      case GrantsSuspendedException s ->
          grantRefused(503, "service_unavailable_error", "grants_suspended", e);
      default -> byReason(e);
    };
  }

  /** A refused grant: the presentation is the parameter at fault. */
  private static Reply.Json grantRefused(int status, String type, String code, ServeException e) {
    return ErrorReply.of(status, type, code, shown(e), Optional.of("jcp_presentation"));
  }

  /** 429 with {@code Retry-After}: a full backend or server frees a slot within a serve's time. */
  private static Reply overloaded(String message) {
    return new Reply.Json(
        429,
        ErrorReply.body("rate_limit_error", "overloaded", message, Optional.empty()),
        Reply.Retry.AFTER_A_SECOND);
  }

  /** The {@code Retry-After} of a 429, in seconds. */
  static final int RETRY_AFTER_SECONDS = 1;

  /**
   * A failed journal's refusal, in the client's words. The journal's own (a write or sync that
   * failed, and on which file or database) name where it lives, which the API listener does not
   * disclose (SPEC 78); the journal logs them, and the console's status shows them, to the
   * operator.
   */
  private static final String JOURNAL_FAILED =
      "the steward's journal failed, so this was not recorded and nothing of it was handed out;"
          + " the journal records nothing more until its operator restarts the steward on it (the"
          + " server's log says why), so do not send this again before then";

  /**
   * A refused serve's message as the API client reads it: the steward's words for clients ({@link
   * ServeException#shown()}), which leave out its reason's name (the answer's code says it, and the
   * SDKs print the message after the status: the Node SDK's "502 ENGINE_FAILED: backend ...") and
   * whatever of a failed engine's words it did not declare its client's: the client reads a
   * reference to the steward's log line instead (SPEC.md 60.10). An upstream's refusal is told by
   * its status only ({@link UpstreamRefusedException#clientWords()}).
   */
  static String shown(ServeException e) {
    return e.shown();
  }

  private static Reply.Json byReason(ServeException e) {
    String code = e.reason().name().toLowerCase(Locale.ROOT);
    String message = shown(e);
    if (e.reason() == ServeException.Reason.ENGINE_FAILED
        && e.getCause() instanceof UpstreamRefusedException u
        && u.refusedTheRequest()) {
      // The upstream refused the request as it was asked (an odd role, a prompt over its
      // context): the client's to change, not a failed serve (SPEC 70, "An upstream's
      // refusal").
      return ErrorReply.invalid(400, "upstream_refused", message);
    }
    return switch (e.reason()) {
      case NO_ADMISSIBLE_BACKEND -> {
        // The router's message (fixed by the conformance vectors) says which rules refused; its
        // hint says which bound to move, which a client reading the SDK's error needs most.
        String hinted =
            e.getCause() instanceof NoAdmissibleBackendException n
                ? message + ": " + n.hint()
                : message;
        ObjectNode body =
            ErrorReply.body("invalid_request_error", code, hinted, Optional.of("metadata"));
        ((ObjectNode) body.get("error")).set("candidates", EnergyUsage.candidates(e.candidates()));
        yield new Reply.Json(422, body);
      }
      case BACKEND_BUSY ->
          new Reply.Json(
              429,
              ErrorReply.body("rate_limit_error", code, message, Optional.of("model")),
              Reply.Retry.AFTER_A_SECOND);
      case OVER_CONTEXT -> ErrorReply.invalid(422, code, message, Optional.of("max_tokens"));
      case OVER_CEILING -> ErrorReply.invalid(422, code, message, Optional.of("metadata"));
      case QUESTIONS_MISMATCH, PROMPT_MISMATCH -> ErrorReply.invalid(400, code, message);
      case ENGINE_FAILED, INCONSISTENT_OUTCOME, FIDELITY_OVERCLAIM, WEIGHTS_CHANGED ->
          ErrorReply.of(502, "server_error", code, message, Optional.empty());
      case NOT_RECORDED ->
          ErrorReply.of(
              503,
              "server_error",
              code,
              e.journalFailed() ? JOURNAL_FAILED : message,
              Optional.empty());
      case NOT_ISSUER ->
          ErrorReply.of(401, "authentication_error", code, message, Optional.empty());
      case GRANT_REFUSED -> ErrorReply.of(403, "permission_error", code, message, Optional.empty());
      case GRANTS_SUSPENDED, JOURNAL_NOT_DURABLE ->
          ErrorReply.of(503, "service_unavailable_error", code, message, Optional.empty());
    };
  }
}
