package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.hex;
import static org.meshjava.conformance.pack.internal.Fixtures.obj;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.internal.TinyModel;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.weights.WeightsFile;
import org.meshjava.engine.ReferenceEngine;

/**
 * The pack's groups about encodings that stand alone: canonical CBOR (SPEC 10.1), the request's
 * canonical form (§3.1, SPEC 10.3), did:key (SPEC 10.4), the weights digest (§3.6), the router's
 * choice and justification (§4, SPEC 20 §6) and the reference engine's tokens (SPEC 50).
 */
final class EncodingCases {
  private EncodingCases() {}

  static PackGroup cbor() {
    List<PackCase> c = new ArrayList<>();
    for (JsonNode k : Fixtures.catalogue("cbor-cases.json").get("cases")) {
      String id = "cbor/" + k.get("slug").asText();
      String comment = k.get("comment").asText();
      ObjectNode in = obj("cbor", k.get("cbor").asText().replace(" ", ""));
      String[] flags = new String[k.path("flags").size()];
      for (int f = 0; f < flags.length; f++) {
        flags[f] = k.get("flags").get(f).asText();
      }
      c.add(
          k.has("reason")
              ? PackCase.invalid(id, comment, "decode_cbor", in, k.get("reason").asText(), flags)
              : PackCase.valid(id, comment, "decode_cbor", in, obj(), flags));
    }
    return new PackGroup(
        "cbor",
        "Canonical CBOR decoding (SPEC 10.1, RFC 8949 §4.2.1 without major type 7): op decode_cbor; "
            + "the reason is the rule of SPEC 10.1.3 the input breaks first.",
        c);
  }

  // --- requests --------------------------------------------------------------------------------

  static final ContentId EMPTY_PROMPT = ContentId.ofBytes(new byte[0]);

  static PackGroup requests() {
    List<PackCase> c = new ArrayList<>();
    request(
        c,
        "reference-vector",
        "the request of conformance/v1/reference",
        ReferenceInputs.v1Generation().request());
    request(
        c,
        "decision-vector",
        "the request of conformance/v1/decision: the decision entry sorts first",
        ReferenceInputs.v1Decision().request());
    request(
        c,
        "commitment-vector",
        "the request of conformance/v1/commitment",
        ReferenceInputs.v1Commitment().request());
    request(
        c,
        "spec-10-3-1",
        "SPEC 10.3.1's worked generation: 146 bytes",
        ServeRequest.generation(EMPTY_PROMPT, 12, new ServeBounds(256, Fidelity.F2, 5_000_000)));
    request(
        c,
        "spec-10-3-2",
        "SPEC 10.3.2's worked decision",
        ServeRequest.decision(
            EMPTY_PROMPT,
            12,
            new ServeBounds(256, Fidelity.F2, 5_000_000),
            new DecisionShape(1, 3, 10)));
    request(
        c,
        "widest-values",
        "u32 counts at 2^32-1 and the ceiling at 2^63-1 take the widest heads",
        ServeRequest.generation(
            EMPTY_PROMPT, 0xffffffffL, new ServeBounds(0xffffffffL, Fidelity.F4, Long.MAX_VALUE)));
    request(
        c,
        "zero-values",
        "every count and the ceiling at 0, floor F0",
        ServeRequest.generation(EMPTY_PROMPT, 0, new ServeBounds(0, Fidelity.F0, 0)));
    ObjectNode base =
        ReferenceInputs.requestJson(
            ServeRequest.generation(
                EMPTY_PROMPT, 12, new ServeBounds(256, Fidelity.F2, 5_000_000)));
    badRequest(
        c,
        "floor-above-f4",
        "a fidelity floor of 5 is no level of §3.2",
        base,
        r -> r.put("fidelity_floor", 5));
    badRequest(
        c,
        "prompt-tokens-above-u32",
        "prompt_tokens 2^32 does not fit a u32",
        base,
        r -> r.put("prompt_tokens", 0x1_0000_0000L));
    badRequest(
        c,
        "no-ceiling",
        "a request without joule_ceiling_uj (§3.1 requires both bounds)",
        base,
        r -> r.remove("joule_ceiling_uj"));
    badRequest(
        c,
        "no-floor",
        "a request without fidelity_floor (§3.1 requires both bounds)",
        base,
        r -> r.remove("fidelity_floor"));
    badRequest(
        c,
        "schema-above-prompt",
        "schema_tokens above prompt_tokens",
        base,
        r -> r.set("decision", decision(1, 3, 13)));
    badRequest(
        c,
        "no-questions",
        "a decision of zero questions",
        base,
        r -> r.set("decision", decision(0, 0, 0)));
    badRequest(
        c,
        "fewer-options-than-questions",
        "options_scored below questions",
        base,
        r -> r.set("decision", decision(3, 2, 0)));
    return new PackGroup(
        "requests",
        "The ServeRequest canonical form and request id (§3.1, §3.6, SPEC 10.3): op encode_request.",
        c);
  }

  private static ObjectNode decision(long q, long o, long s) {
    ObjectNode d = obj();
    d.put("questions", q);
    d.put("options_scored", o);
    d.put("schema_tokens", s);
    return d;
  }

  private static void request(List<PackCase> c, String slug, String comment, ServeRequest r) {
    ObjectNode expected = obj();
    expected.put("request", hex(r.encode()));
    expected.put("request_id", r.id().hex());
    c.add(
        PackCase.valid(
            "requests/" + slug,
            comment,
            "encode_request",
            obj().set("request", ReferenceInputs.requestJson(r)),
            expected));
  }

  private static void badRequest(
      List<PackCase> c,
      String slug,
      String comment,
      ObjectNode base,
      java.util.function.Consumer<ObjectNode> edit) {
    ObjectNode r = base.deepCopy();
    edit.accept(r);
    c.add(
        PackCase.invalid(
            "requests/" + slug,
            comment,
            "encode_request",
            obj().set("request", r),
            "INVALID_REQUEST"));
  }

  // --- identity --------------------------------------------------------------------------------

  static PackGroup identity() {
    List<PackCase> c = new ArrayList<>();
    did(c, "vector-steward", "the published vectors' steward, seed 00 01 .. 1f", Fixtures.SEED);
    did(c, "spec-org", "SPEC 30 §10's org, seed of 32 bytes 01", Fixtures.repeated(1));
    did(c, "spec-caller", "SPEC 30 §10's caller, seed of 32 bytes 02", Fixtures.repeated(2));
    did(c, "spec-steward", "SPEC 30 §10's steward, seed of 32 bytes 03", Fixtures.repeated(3));
    return new PackGroup(
        "identity", "did:key of an Ed25519 seed (SPEC 10.4, 30 §1): op did_key.", c);
  }

  private static void did(List<PackCase> c, String slug, String comment, byte[] seed) {
    c.add(
        PackCase.valid(
            "identity/" + slug,
            comment,
            "did_key",
            obj("seed", hex(seed)),
            obj("did_key", DidKey.of(SigningKey.fromSeed(seed).verificationKey()).value())));
  }

  // --- weights ---------------------------------------------------------------------------------

  static PackGroup weights() {
    List<PackCase> c = new ArrayList<>();
    List<WeightsFile> tiny = TinyModel.digest().files();
    List<WeightsFile> shuffled = new ArrayList<>(tiny);
    java.util.Collections.reverse(shuffled);
    c.add(
        weightsCase(
            "tiny-model",
            "the commitment vector's sharded model, files given in reverse: sort by path bytes ('-' before '.')",
            shuffled));
    List<WeightsFile> single =
        List.of(
            new WeightsFile(
                "config.json", ContentId.ofBytes("{}".getBytes(StandardCharsets.UTF_8))),
            new WeightsFile(
                "model.safetensors",
                ContentId.ofBytes("weights-a".getBytes(StandardCharsets.UTF_8))));
    c.add(weightsCase("single-file", "config.json and one model.safetensors", single));
    List<WeightsFile> nested =
        List.of(
            new WeightsFile("config.json", ContentId.ofBytes(new byte[0])),
            new WeightsFile("shards/a.safetensors", ContentId.ofBytes(new byte[] {1})),
            new WeightsFile("shards/\u00e9.safetensors", ContentId.ofBytes(new byte[] {2})));
    c.add(
        weightsCase(
            "nested-utf8",
            "a shard path under a folder and one with a non-ASCII name, ordered by UTF-8 bytes",
            nested));
    return new PackGroup(
        "weights",
        "The weights digest over a list of (path, BLAKE3) pairs (§3.6, SPEC 50 Bound weights): op weights_digest.",
        c);
  }

  /** The digest of {@code files} in the order given: the digest sorts them (SPEC 50). */
  private static PackCase weightsCase(String slug, String comment, List<WeightsFile> files) {
    org.meshjava.core.weights.WeightsDigest d = new org.meshjava.core.weights.WeightsDigest(files);
    ObjectNode in = obj();
    ArrayNode arr = in.putArray("files");
    for (WeightsFile f : files) {
      ObjectNode o = arr.addObject();
      o.put("path", f.path());
      o.put("blake3", f.digest().hex());
    }
    ObjectNode e = obj();
    e.put("weights_canonical", hex(d.encode()));
    e.put("weights_digest", d.digest().hex());
    return PackCase.valid("weights/" + slug, comment, "weights_digest", in, e);
  }

  // --- routes ----------------------------------------------------------------------------------

  /** A backend of a route case: name, fidelity, µJ per token, µJ per option scored. */
  record Backend(String name, int fidelity, long ujPerToken, long ujPerOption) {
    ObjectNode json() {
      ObjectNode o = obj();
      o.put("name", name);
      o.put("fidelity", fidelity);
      o.put("uj_per_token", ujPerToken);
      o.put("uj_per_option_scored", ujPerOption);
      return o;
    }
  }

  static final List<Backend> FOUR =
      List.of(
          new Backend("tiny", 0, 10, 0),
          new Backend("small", 1, 100, 0),
          new Backend("medium", 2, 150, 0),
          new Backend("frontier", 4, 1000, 0));

  static PackGroup routes() {
    List<PackCase> c = new ArrayList<>();
    ServeRequest gen = ReferenceInputs.v1Generation().request();
    route(
        c,
        "single-backend",
        "the reference vector's route: one backend weighed, no refusal clauses",
        gen,
        List.of(new Backend("reference", 2, 100, 0)));
    route(
        c,
        "four-backends",
        "one below floor, two admissible, one over ceiling: every clause in order",
        gen,
        FOUR);
    route(
        c,
        "tie-keeps-registration-order",
        "equal estimates: the first registered wins and the other is 'dearer or tied later'",
        gen,
        List.of(new Backend("first", 2, 100, 0), new Backend("second", 3, 100, 0)));
    route(
        c,
        "ceiling-is-admissible",
        "an estimate equal to the ceiling is admissible",
        ServeRequest.generation(gen.promptHash(), 9, new ServeBounds(16, Fidelity.F1, 2500)),
        List.of(new Backend("exact", 1, 100, 0)));
    route(
        c,
        "decision-excludes-max-tokens",
        "a decision is priced per option, never for max_tokens (§3.6)",
        ReferenceInputs.v1Decision().request(),
        List.of(new Backend("tokens-only", 2, 100, 0), new Backend("per-option", 2, 60, 100)));
    noRoute(
        c,
        "none-admissible",
        "every backend below the floor or over the ceiling: the failure names each count",
        ServeRequest.generation(gen.promptHash(), 9, new ServeBounds(16, Fidelity.F3, 10_000)),
        FOUR);
    noRoute(
        c,
        "all-below-floor",
        "only below-floor refusals",
        ServeRequest.generation(gen.promptHash(), 9, new ServeBounds(16, Fidelity.F4, 10_000)),
        List.of(new Backend("a", 1, 1, 0), new Backend("b", 3, 1, 0)));
    c.add(
        PackCase.invalid(
            "routes/backend-name-line-separator",
            "a backend name holding U+2028, which a log or JSON reader takes for a line end: the"
                + " backend is refused at registration, before any routing (SPEC 20 §6)",
            "route",
            routeInput(gen, List.of(new Backend("gpu\u2028one", 2, 100, 0))),
            "INVALID_BACKEND"));
    return new PackGroup(
        "routes",
        "The cheapest admissible backend and the route justification text (§4, SPEC 20 §6): op route.",
        c);
  }

  private static ObjectNode routeInput(ServeRequest r, List<Backend> backends) {
    ObjectNode in = obj();
    in.set("request", ReferenceInputs.requestJson(r));
    ArrayNode arr = in.putArray("backends");
    backends.forEach(b -> arr.add(b.json()));
    return in;
  }

  private static void route(
      List<PackCase> c, String slug, String comment, ServeRequest r, List<Backend> backends) {
    ObjectNode in = routeInput(r, backends);
    ObjectNode answer = answer("route", in);
    c.add(PackCase.valid("routes/" + slug, comment, "route", in, answer));
  }

  private static void noRoute(
      List<PackCase> c, String slug, String comment, ServeRequest r, List<Backend> backends) {
    ObjectNode in = routeInput(r, backends);
    ObjectNode answer = refusal("route", in);
    c.add(
        PackCase.invalid("routes/" + slug, comment, "route", in, "NO_ADMISSIBLE_BACKEND")
            .expecting("message", answer.get("message")));
  }

  /**
   * The justification text is this implementation's (SPEC 20 §6 states it); the pack pins what it
   * writes. Taken from the subject's own router so the text here is the router's, byte for byte.
   */
  private static ObjectNode answer(String op, ObjectNode in) {
    try {
      return new MeshJavaPackSubject().perform(op, in).orElseThrow();
    } catch (Exception e) {
      throw new IllegalStateException(op + " failed while generating: " + e.getMessage(), e);
    }
  }

  private static ObjectNode refusal(String op, ObjectNode in) {
    try {
      new MeshJavaPackSubject().perform(op, in);
    } catch (Refusal r) {
      return r.output();
    } catch (Exception e) {
      throw new IllegalStateException(op + " failed while generating: " + e.getMessage(), e);
    }
    throw new IllegalStateException(op + " was expected to refuse");
  }

  // --- the reference engine --------------------------------------------------------------------

  static PackGroup referenceEngine() {
    List<PackCase> c = new ArrayList<>();
    ReferenceInputs gen = ReferenceInputs.v1Generation();
    generate(c, "reference-vector", "the reference vector's 16 tokens", gen, 16);
    generate(
        c,
        "commitment-vector",
        "the commitment vector's 5 tokens",
        ReferenceInputs.v1Commitment(),
        16);
    generate(
        c,
        "one-round-per-token",
        "work_per_token 1: the rounds per token change the tokens",
        gen,
        1);
    generate(c, "zero-rounds-is-one", "work_per_token 0 is taken as 1", gen, 0);
    generate(
        c,
        "decision-emits-nothing",
        "a decision request emits no tokens",
        ReferenceInputs.v1Decision(),
        16);
    for (var v : org.meshjava.conformance.Vector.v1()) {
      ObjectNode in = obj();
      in.set("inputs", v.inputs().toJson());
      c.add(
          PackCase.valid(
              "reference-engine/serve-" + v.name(),
              "the whole serve of conformance/v1/"
                  + v.name()
                  + " from its meta.json inputs gives its envelope.hex",
              "serve",
              in,
              obj("envelope", Fixtures.serve(v.inputs()).envelope().hex())));
    }
    return new PackGroup(
        "reference-engine",
        "The reference engine's token algorithm (SPEC 50 The reference engine) and the whole reference serve (§7): ops reference_generate and serve.",
        c);
  }

  private static void generate(
      List<PackCase> c, String slug, String comment, ReferenceInputs in, int work) {
    ObjectNode input = obj();
    input.set("request", ReferenceInputs.requestJson(in.request()));
    input.set("prompt_payload", Fixtures.tokensJson(in.prompt()));
    input.put("work_per_token", work);
    TokenSequence out =
        ReferenceEngine.builder()
            .workPerToken(work)
            .build()
            .serve(in.request(), in.prompt())
            .tokens();
    ObjectNode e = obj();
    e.set("output_tokens", Fixtures.tokensJson(out));
    c.add(PackCase.valid("reference-engine/" + slug, comment, "reference_generate", input, e));
  }
}
