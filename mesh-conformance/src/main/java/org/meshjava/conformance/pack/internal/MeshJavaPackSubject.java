package org.meshjava.conformance.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.ReferenceServe;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.core.weights.WeightsDigest;
import org.meshjava.core.weights.WeightsFile;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.Authorisation;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Unresolved;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.openai.BindingException;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.CoseSign1;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.router.NoAdmissibleBackendException;
import org.meshjava.router.RouteDecision;
import org.meshjava.router.Router;
import org.meshjava.steward.ReplayInputs;
import org.meshjava.steward.ReplayVerdict;
import org.meshjava.steward.Replayer;

/**
 * mesh-java as a conformance subject: reads one request per line on standard input, answers one
 * line on standard output, over the protocol of {@code conformance/README.md}. Every answer is
 * computed by mesh-java's own library, as any other implementation would compute its own.
 *
 * <p>An operation the input does not fit (a missing field, a value out of range where the protocol
 * expects a well-formed one) answers {@code error}, which the runner counts as a failure: a subject
 * must not crash its way to a pass.
 */
public class MeshJavaPackSubject {
  private static final HexFormat HEX = HexFormat.of();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Creates the subject. */
  public MeshJavaPackSubject() {}

  /** Entry point: answers requests until standard input ends. */
  public static void main(String[] args) throws IOException {
    new MeshJavaPackSubject().serve(System.in, System.out);
  }

  /** Answers every request line of {@code in} on {@code out}, until {@code in} ends. */
  public void serve(java.io.InputStream in, PrintStream out) throws IOException {
    serve(in, new PrintWriter(out, false, StandardCharsets.UTF_8));
  }

  /** Answers every request line of {@code in} on {@code out}, until {@code in} ends. */
  public void serve(java.io.InputStream in, PrintWriter out) throws IOException {
    BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    for (String line = r.readLine(); line != null; line = r.readLine()) {
      if (line.isBlank()) {
        continue;
      }
      // An answer may echo an unpaired surrogate (a request's id, a refused body): JsonUtf8's
      // escape keeps it, where the UTF-8 writer would put '?' in its place.
      out.println(JsonUtf8.text(JSON.writeValueAsString(answer(line))));
      out.flush();
    }
  }

  /** Answers one request line. */
  public ObjectNode answer(String line) {
    JsonNode request;
    try {
      request = JSON.readTree(line);
    } catch (IOException e) {
      return error("", "the request is not JSON: " + e.getMessage());
    }
    String id = request.path("id").asText();
    String op = request.path("op").asText();
    JsonNode input = request.path("input");
    try {
      Optional<ObjectNode> output = perform(op, input);
      ObjectNode a = NODES.objectNode();
      a.put("id", id);
      if (output.isEmpty()) {
        a.put("result", "unsupported");
        return a;
      }
      a.put("result", "valid");
      a.set("output", output.get());
      return a;
    } catch (Refusal r) {
      ObjectNode a = NODES.objectNode();
      a.put("id", id);
      a.put("result", "invalid");
      a.put("reason", r.reason());
      a.put("detail", String.valueOf(r.getMessage()));
      a.set("output", r.output());
      return a;
    } catch (Exception e) {
      return error(id, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static ObjectNode error(String id, String detail) {
    ObjectNode a = NODES.objectNode();
    a.put("id", id);
    a.put("result", "error");
    a.put("detail", detail);
    return a;
  }

  /**
   * Performs one operation; empty when this subject does not support it. Subclasses (test doubles
   * that break one rule on purpose) override this.
   */
  protected Optional<ObjectNode> perform(String op, JsonNode in) throws Exception {
    return Optional.ofNullable(
        switch (op) {
          case "hello" -> obj("name", "mesh-java 0.1.0");
          case "decode_cbor" -> decodeCbor(in);
          case "encode_request" -> encodeRequest(in);
          case "did_key" -> obj("did_key", did(SigningKey.fromSeed(hex(in, "seed"))).value());
          case "encode_core" -> encodeCore(in);
          case "seal" -> seal(in);
          case "verify_envelope" -> verifyEnvelope(in);
          case "verify_chain" -> verifyChain(in);
          case "commit_output" -> commitOutput(in);
          case "verify_disclosure" -> verifyDisclosure(in);
          case "weights_digest" -> weightsDigest(in);
          case "route" -> route(in);
          case "reference_generate" -> referenceGenerate(in);
          case "serve" ->
              obj(
                  "envelope",
                  ReferenceServe.run(ReferenceInputs.fromJson(in.path("inputs"))).envelope().hex());
          case "decide_grant" -> decideGrant(in);
          case "derive_request" -> deriveRequest(in);
          case "replay_journal" -> replayJournal(in);
          case "replay" -> replay(in);
          default -> null;
        });
  }

  // --- encodings -------------------------------------------------------------------------------

  private static ObjectNode decodeCbor(JsonNode in) throws Refusal {
    try {
      CanonicalCbor.decode(hex(in, "cbor"));
      return NODES.objectNode();
    } catch (CborDecodeException e) {
      throw Refusal.locating(
          e.rule().name(), e.getMessage(), "offset", OptionalLong.of(e.offset()));
    }
  }

  private static ObjectNode encodeRequest(JsonNode in) throws Refusal {
    ServeRequest r = request(in.path("request"));
    ObjectNode out = NODES.objectNode();
    out.put("request", HEX.formatHex(r.encode()));
    out.put("request_id", r.id().hex());
    return out;
  }

  /** Reads the protocol's request object; a request mesh/1 does not admit is INVALID_REQUEST. */
  static ServeRequest request(JsonNode r) throws Refusal {
    try {
      JsonNode d = r.get("decision");
      return new ServeRequest(
          ContentId.fromHex(r.path("prompt_hash").asText()),
          number(r, "prompt_tokens"),
          number(r, "max_tokens"),
          Fidelity.of(number(r, "fidelity_floor")),
          number(r, "joule_ceiling_uj"),
          d == null
              ? Optional.empty()
              : Optional.of(
                  new DecisionShape(
                      number(d, "questions"),
                      number(d, "options_scored"),
                      number(d, "schema_tokens"))));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new Refusal("INVALID_REQUEST", String.valueOf(e.getMessage()));
    }
  }

  private static long number(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new IllegalArgumentException(field + " is not an integer in range");
    }
    return v.asLong();
  }

  // --- receipts --------------------------------------------------------------------------------

  private static ObjectNode encodeCore(JsonNode in) throws Refusal {
    try {
      return obj(
          "signed_core", HEX.formatHex(ReceiptJson.parse(in.path("receipt")).encodeSignedCore()));
    } catch (ReceiptException e) {
      throw new Refusal(e.reason().name(), e.getMessage());
    }
  }

  private static ObjectNode seal(JsonNode in) {
    SigningKey key = SigningKey.fromSeed(hex(in, "seed"));
    byte[] envelope =
        CoseSign1.sign(
                Jcr1.protectedHeader(did(key)), CborMap.of(List.of()), hex(in, "signed_core"), key)
            .encode();
    return obj("envelope", HEX.formatHex(envelope));
  }

  /** Verifies an envelope; package-private so a test double can loosen one rule. */
  ObjectNode verifyEnvelope(JsonNode in) throws Refusal {
    return opened(open(hex(in, "envelope")));
  }

  static SealedReceipt open(byte[] envelope) throws Refusal {
    try {
      return Jcr1.open(envelope);
    } catch (ReceiptException e) {
      throw new Refusal(e.reason().name(), e.getMessage());
    }
  }

  static ObjectNode opened(SealedReceipt s) {
    ObjectNode out = NODES.objectNode();
    out.put("envelope_id", s.envelope().id().hex());
    out.set("receipt", ReceiptJson.of(s.receipt()));
    return out;
  }

  private static ObjectNode verifyChain(JsonNode in) throws Refusal {
    List<Envelope> envelopes = new ArrayList<>();
    in.path("envelopes").forEach(e -> envelopes.add(Envelope.fromHex(e.asText())));
    List<SealedReceipt> verified;
    try {
      verified =
          in.path("from_genesis").asBoolean(true)
              ? ReceiptChain.verifyFromGenesis(envelopes)
              : ReceiptChain.verifySegment(envelopes);
    } catch (ReceiptException e) {
      throw Refusal.locating(e.reason().name(), e.getMessage(), "index", e.index());
    }
    ObjectNode out = NODES.objectNode();
    out.put("length", verified.size());
    if (!verified.isEmpty()) {
      SealedReceipt head = verified.getLast();
      out.put("head_sequence", head.receipt().sequence());
      out.put("head_envelope_id", head.envelope().id().hex());
    }
    return out;
  }

  private static ObjectNode commitOutput(JsonNode in) {
    TokenSequence prompt = tokens(in.path("prompt_payload"));
    ContentId payload = OutputCommitment.payloadDigest(prompt);
    ObjectNode out = NODES.objectNode();
    out.put("payload_digest", payload.hex());
    out.put(
        "output_commitment",
        OutputCommitment.commit(
                Opening.of(hex(in, "opening")),
                ContentId.fromHex(in.path("request_id").asText()),
                payload,
                tokens(in.path("output_tokens")))
            .hex());
    return out;
  }

  private static ObjectNode verifyDisclosure(JsonNode in) throws Refusal {
    SealedReceipt s = open(hex(in, "envelope"));
    Disclosure d =
        new Disclosure(
            Opening.of(hex(in, "opening")),
            ContentId.fromHex(in.path("payload_digest").asText()),
            tokens(in.path("output_tokens")));
    try {
      d.verify(s.receipt());
    } catch (ReceiptException e) {
      throw new Refusal(e.reason().name(), e.getMessage());
    }
    return NODES.objectNode();
  }

  private static ObjectNode weightsDigest(JsonNode in) {
    List<WeightsFile> files = new ArrayList<>();
    in.path("files")
        .forEach(
            f ->
                files.add(
                    new WeightsFile(
                        f.path("path").asText(), ContentId.fromHex(f.path("blake3").asText()))));
    files.sort(
        (a, b) ->
            java.util.Arrays.compareUnsigned(
                a.path().getBytes(StandardCharsets.UTF_8),
                b.path().getBytes(StandardCharsets.UTF_8)));
    WeightsDigest d = new WeightsDigest(files);
    ObjectNode out = NODES.objectNode();
    out.put("weights_canonical", HEX.formatHex(d.encode()));
    out.put("weights_digest", d.digest().hex());
    return out;
  }

  // --- routing and the reference engine --------------------------------------------------------

  private static ObjectNode route(JsonNode in) throws Refusal {
    ServeRequest request = request(in.path("request"));
    Router router;
    try {
      router = new Router(routeBackends(in.path("backends")));
    } catch (IllegalArgumentException e) {
      // A backend the router cannot register (a name it refuses, two of one name, a fidelity or
      // cost out of range) is the case's input refused, typed as the runner reads refusals: it
      // was answered "error", which no case can expect.
      throw new Refusal(
          "INVALID_BACKEND", e.getMessage(), obj("message", String.valueOf(e.getMessage())));
    }
    try {
      RouteDecision d = router.route(request);
      ObjectNode out = NODES.objectNode();
      out.put("backend", d.chosen().name());
      out.put("route", d.justification());
      return out;
    } catch (NoAdmissibleBackendException e) {
      throw new Refusal(
          "NO_ADMISSIBLE_BACKEND", e.getMessage(), obj("message", String.valueOf(e.getMessage())));
    }
  }

  private static List<ServingEngine> routeBackends(JsonNode list) {
    List<ServingEngine> backends = new ArrayList<>();
    for (JsonNode b : list) {
      backends.add(
          ReferenceEngine.builder()
              .name(b.path("name").asText())
              .fidelity(Fidelity.of(b.path("fidelity").asLong()))
              .costProfile(
                  new CostProfile(
                      b.path("uj_per_token").asLong(), b.path("uj_per_option_scored").asLong()))
              .build());
    }
    return backends;
  }

  private static ObjectNode referenceGenerate(JsonNode in) throws Exception {
    ReferenceEngine engine =
        ReferenceEngine.builder().workPerToken(in.path("work_per_token").asInt()).build();
    TokenSequence out =
        engine.serve(request(in.path("request")), tokens(in.path("prompt_payload"))).tokens();
    ObjectNode o = NODES.objectNode();
    o.set("output_tokens", tokensJson(out));
    return o;
  }

  // --- grants ----------------------------------------------------------------------------------

  private static ObjectNode decideGrant(JsonNode in) throws Refusal {
    DidKey steward = didKey(in.path("steward").asText());
    Revocations revocations = Revocations.none();
    for (JsonNode r : in.path("revocations")) {
      revocations.revoke(
          GrantId.fromHex(r.path("grant_id").asText()),
          Instant.ofEpochMilli(r.path("from_ms").asLong()));
    }
    Gate gate = Gate.create(steward, SpendLedger.inMemory(), revocations);
    for (JsonNode h : in.path("history")) {
      try {
        Authorisation a = gate.decide(presentation(h), request(h.path("request")), model(h), at(h));
        gate.debit(a, h.path("debit_uj").asLong());
      } catch (GrantRefusedException e) {
        throw new IllegalArgumentException("a history serve was refused: " + e.getMessage(), e);
      }
    }
    Presentation p = presentation(in);
    Authorisation a;
    try {
      a = gate.decide(p, request(in.path("request")), model(in), at(in));
    } catch (GrantRefusedException e) {
      throw Refusal.locating(e.label().wire(), e.getMessage(), "link", e.link());
    }
    ObjectNode out = NODES.objectNode();
    out.put("grant_id", a.grantId().hex());
    out.put("remaining_uj", gate.remainingUj(p.chain()));
    if (in.has("debit_uj")) {
      DebitResult d = gate.debit(a, in.path("debit_uj").asLong());
      if (d.breach().isPresent()) {
        out.put("breach", d.breach().get().wire());
      } else {
        out.putNull("breach");
      }
      out.put("remaining_after_debit_uj", d.remainingUj());
    }
    return out;
  }

  private static Presentation presentation(JsonNode in) throws Refusal {
    try {
      return Presentation.fromHex(in.path("presentation").asText());
    } catch (MalformedGrantException | IllegalArgumentException e) {
      throw new Refusal("malformed", String.valueOf(e.getMessage()));
    }
  }

  private static Optional<ContentId> model(JsonNode in) {
    JsonNode m = in.get("model");
    return m == null || m.isNull() ? Optional.empty() : Optional.of(ContentId.fromHex(m.asText()));
  }

  private static Instant at(JsonNode in) {
    return Instant.ofEpochMilli(in.path("at_ms").asLong());
  }

  // --- the OpenAI binding ----------------------------------------------------------------------

  /**
   * The request {@code body} derives to, read as the binding reads a body it is sent: the bytes of
   * the text's UTF-8 encoding, through {@link GrantedServeRequest#parseBody}, so that a byte-order
   * mark or a zero byte is {@code not_utf8} here as on the wire (read as Java text, a mark was
   * parsed or refused as JSON, and {@code not_utf8} could never be answered).
   */
  private static ObjectNode deriveRequest(JsonNode in) throws Refusal {
    try {
      ServeRequest r = GrantedServeRequest.derive(GrantedServeRequest.parseBody(utf8(in, "body")));
      ObjectNode out = NODES.objectNode();
      out.put("request", HEX.formatHex(r.encode()));
      out.put("request_id", r.id().hex());
      return out;
    } catch (BindingException e) {
      // The vectors name the binding's reason (invalid_field, invalid_metadata, ...), the
      // vocabulary conformance/README.md's table gives every implementation; not the wire code,
      // which for a field out of range or of the wrong type is OpenAI's own word
      // (integer_below_min_value, invalid_type) and is mesh-java's HTTP binding's alone.
      throw new Refusal(e.reason().name().toLowerCase(Locale.ROOT), e.getMessage());
    }
  }

  /**
   * The UTF-8 bytes of text field {@code field}, encoded as a prompt's text is ({@link
   * PromptText#of(String)}); a text that has none (an unpaired surrogate) is refused {@code
   * not_utf8}, rather than sent with a replacement character in its place.
   */
  private static byte[] utf8(JsonNode in, String field) throws Refusal {
    try {
      return PromptText.of(in.path(field).asText()).bytes();
    } catch (IllegalArgumentException e) {
      throw new Refusal("not_utf8", field + " holds an unpaired surrogate, which has no UTF-8");
    }
  }

  // --- the journal -----------------------------------------------------------------------------

  private static ObjectNode replayJournal(JsonNode in) throws Refusal, IOException {
    Path dir = Files.createTempDirectory("mesh-conformance-journal");
    Path file = dir.resolve("journal.jsonl");
    try {
      Files.write(file, in.path("journal").asText().getBytes(StandardCharsets.UTF_8));
      JournalFile.Contents contents;
      JournalReplay.Result result;
      Gate gate =
          Gate.create(
              didKey(in.path("steward").asText()), SpendLedger.inMemory(), Revocations.none());
      try {
        contents = JournalFile.read(file);
        result = JournalReplay.replay(contents.records(), gate);
        LogReplay.replay(
            contents.records(), Checkpoint.logKey(didKey(in.path("steward").asText())), 0);
      } catch (JournalException e) {
        throw Refusal.locating(e.reason().name(), e.getMessage(), "record", e.seq());
      }
      ObjectNode out = NODES.objectNode();
      out.put("records", contents.records().size());
      out.put("dropped_tail_bytes", contents.tornTail());
      out.put("next_sequence", result.lastSealed().map(s -> s.sequence() + 1).orElse(0L));
      if (result.lastSealed().isPresent()) {
        out.put("prev", result.lastSealed().get().envelopeId().hex());
      } else {
        out.putNull("prev");
      }
      TreeMap<String, SignedGrant> links = new TreeMap<>();
      for (JournalRecord r : contents.records()) {
        if (r.entry() instanceof JournalEntry.Chain c) {
          c.chain().links().forEach(l -> links.put(l.id().hex(), l));
        }
      }
      ArrayNode spend = out.putArray("spend");
      links.forEach(
          (id, link) -> {
            var s = gate.ledger().spend(link.id());
            ObjectNode o = spend.addObject();
            o.put("grant_id", id);
            o.put("debited_uj", s.debitedUj());
            o.put("reserved_uj", s.reservedUj());
          });
      ArrayNode unresolved = out.putArray("unresolved");
      for (Unresolved u : result.unresolved()) {
        ObjectNode o = unresolved.addObject();
        o.put("record", u.authorisedSeq());
        o.put("caller", u.caller().value());
        o.put("backend", u.backend());
        o.put("request_id", u.requestId().hex());
        o.put("grant_id", u.grantId().hex());
        o.put("ceiling_uj", u.ceilingUj());
      }
      return out;
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }

  // --- replay ----------------------------------------------------------------------------------

  private static ObjectNode replay(JsonNode in) throws Exception {
    SealedReceipt s = open(hex(in, "envelope"));
    JsonNode e = in.path("engine");
    Optional<WeightsBinding> weights =
        e.hasNonNull("weights_digest")
            ? Optional.of(
                new WeightsBinding(
                    ContentId.fromHex(e.path("weights_digest").asText()),
                    e.path("precision").asText()))
            : Optional.empty();
    ServingEngine engine;
    if (in.has("rerun")) {
      JsonNode rerun = in.get("rerun");
      engine =
          new ScriptedEngine(
              e.path("backend").asText(),
              recipe(e.path("recipe").asText()),
              e.path("deterministic").asBoolean(),
              weights,
              rerun.path("fails").asBoolean(false)
                  ? Optional.empty()
                  : Optional.of(tokens(rerun.path("output_tokens"))));
    } else {
      ReferenceEngine.Builder b =
          ReferenceEngine.builder()
              .name(e.path("backend").asText())
              .recipe(recipe(e.path("recipe").asText()))
              .workPerToken(e.path("work_per_token").asInt());
      weights.ifPresent(b::weights);
      engine = b.build();
    }
    Optional<Disclosure> disclosed = Optional.empty();
    if (in.hasNonNull("disclosed")) {
      JsonNode d = in.get("disclosed");
      disclosed =
          Optional.of(
              new Disclosure(
                  Opening.of(hex(d, "opening")),
                  ContentId.fromHex(d.path("payload_digest").asText()),
                  tokens(d.path("output_tokens"))));
    }
    ReplayVerdict v =
        Replayer.replay(
            new ReplayInputs(
                s.receipt(),
                request(in.path("request")),
                tokens(in.path("prompt_payload")),
                Opening.of(hex(in, "opening")),
                disclosed),
            engine);
    ObjectNode out = NODES.objectNode();
    switch (v) {
      case ReplayVerdict.Verified ok -> out.put("verdict", "Verified");
      case ReplayVerdict.Diverged d -> {
        out.put("verdict", "Diverged");
        out.put("first_difference", d.firstDifference());
      }
      case ReplayVerdict.NotReplayable n -> {
        out.put("verdict", "NotReplayable");
        out.put("reason", n.reason().name());
      }
    }
    return out;
  }

  // --- helpers ---------------------------------------------------------------------------------

  /** A recipe from its name: the base, then {@code +adapter} for each adapter in order (§4). */
  private static Recipe recipe(String name) {
    String[] parts = name.split("\\+", -1);
    Recipe r = Recipe.of(parts[0]);
    for (int i = 1; i < parts.length; i++) {
      r = r.with(parts[i]);
    }
    return r;
  }

  private static DidKey did(SigningKey key) {
    return DidKey.of(key.verificationKey());
  }

  private static DidKey didKey(String text) {
    try {
      return DidKey.parse(text);
    } catch (DidKeyException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  static byte[] hex(JsonNode in, String field) {
    JsonNode v = in.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("'" + field + "' is a hex string");
    }
    return HEX.parseHex(v.asText());
  }

  static TokenSequence tokens(JsonNode ids) {
    int[] t = new int[ids.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = (int) ids.get(i).asLong();
    }
    return TokenSequence.of(t);
  }

  static ArrayNode tokensJson(TokenSequence t) {
    ArrayNode a = NODES.arrayNode();
    for (int id : t.toArray()) {
      a.add(Integer.toUnsignedLong(id));
    }
    return a;
  }

  private static ObjectNode obj(String field, String value) {
    ObjectNode o = NODES.objectNode();
    o.put(field, value);
    return o;
  }
}
