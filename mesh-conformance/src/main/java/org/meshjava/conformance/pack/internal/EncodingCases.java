package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.hex;
import static org.meshjava.conformance.pack.internal.Fixtures.obj;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.TinyModel;
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
    valid(c, "zero", "00", "the integer 0");
    valid(c, "uint-23", "17", "23, the largest integer in the head itself");
    valid(c, "uint-24", "1818", "24, the smallest integer with a one-byte argument");
    valid(c, "uint-256", "190100", "256, the smallest integer with a two-byte argument");
    valid(c, "uint-65536", "1a00010000", "65536, the smallest integer with a four-byte argument");
    valid(
        c,
        "uint-2p32",
        "1b0000000100000000",
        "2^32, the smallest integer with an eight-byte argument");
    valid(
        c,
        "uint-max",
        "1b7fffffffffffffff",
        "2^63-1, the largest integer the profile carries (SPEC 10.1.4)");
    valid(
        c, "negative-min", "3b7fffffffffffffff", "-2^63, the smallest integer the profile carries");
    valid(
        c,
        "empty-containers",
        "8440a060d81880",
        "empty byte string, map, text and a tagged empty array");
    valid(c, "keys-same-length", "a2616101616202", "two one-byte text keys in byte order");
    valid(
        c,
        "keys-length-first",
        "a2616201626161 02".replace(" ", ""),
        "\"b\" sorts before \"aa\": the shorter encoding comes first, whatever the letters",
        "DecoderKeyOrder");
    valid(
        c,
        "keys-int-before-negative-before-text",
        "a3000120026161 03".replace(" ", ""),
        "0 before -1 before \"a\": the encoded key bytes decide");
    valid(
        c,
        "depth-32",
        "81".repeat(31) + "00",
        "arrays nested to the depth limit of 32 (SPEC 10.1.5)");
    valid(c, "noncharacter", "63efbfbe", "U+FFFE is well-formed UTF-8 and accepted");
    invalid(c, "non-shortest-uint8", "1817", "NON_SHORTEST", "23 written with a one-byte argument");
    invalid(
        c, "non-shortest-uint16", "1900ff", "NON_SHORTEST", "255 written with a two-byte argument");
    invalid(
        c,
        "non-shortest-uint32",
        "1a0000ffff",
        "NON_SHORTEST",
        "65535 written with a four-byte argument");
    invalid(
        c,
        "non-shortest-uint64",
        "1b00000000ffffffff",
        "NON_SHORTEST",
        "2^32-1 written with an eight-byte argument");
    invalid(
        c,
        "non-shortest-bytes-length",
        "5800",
        "NON_SHORTEST",
        "an empty byte string with a one-byte length");
    invalid(
        c,
        "non-shortest-text-length",
        "7800",
        "NON_SHORTEST",
        "an empty text with a one-byte length");
    invalid(
        c,
        "non-shortest-array-count",
        "9800",
        "NON_SHORTEST",
        "an empty array with a one-byte count");
    invalid(
        c, "non-shortest-map-count", "b800", "NON_SHORTEST", "an empty map with a one-byte count");
    invalid(c, "non-shortest-tag", "d80100", "NON_SHORTEST", "tag 1 with a one-byte tag number");
    invalid(
        c, "indefinite-bytes", "5f40ff", "INDEFINITE_LENGTH", "an indefinite-length byte string");
    invalid(
        c, "indefinite-text", "7f60ff", "INDEFINITE_LENGTH", "an indefinite-length text string");
    invalid(c, "indefinite-array", "9fff", "INDEFINITE_LENGTH", "an indefinite-length array");
    invalid(c, "indefinite-map", "bfff", "INDEFINITE_LENGTH", "an indefinite-length map");
    invalid(c, "false", "f4", "FORBIDDEN_SIMPLE", "false: mesh/1 writes flags as 0 or 1");
    invalid(c, "true", "f5", "FORBIDDEN_SIMPLE", "true");
    invalid(c, "null", "f6", "FORBIDDEN_SIMPLE", "null: an absent field is left out");
    invalid(c, "undefined", "f7", "FORBIDDEN_SIMPLE", "undefined");
    invalid(c, "float16", "f93c00", "FORBIDDEN_SIMPLE", "a half-precision float 1.0");
    invalid(c, "float64", "fb3ff0000000000000", "FORBIDDEN_SIMPLE", "a double 1.0");
    invalid(c, "stray-break", "ff", "FORBIDDEN_SIMPLE", "a break byte outside any indefinite item");
    invalid(
        c,
        "reserved-additional-info",
        "1c",
        "RESERVED_ADDITIONAL_INFO",
        "additional information 28");
    invalid(
        c,
        "uint-above-range",
        "1b8000000000000000",
        "INTEGER_RANGE",
        "2^63, above the profile's range");
    invalid(
        c,
        "negative-below-range",
        "3b8000000000000000",
        "INTEGER_RANGE",
        "-2^63-1, below the profile's range");
    invalid(c, "utf8-overlong", "62c080", "INVALID_UTF8", "an overlong encoding of U+0000");
    invalid(c, "utf8-surrogate", "63eda080", "INVALID_UTF8", "an encoded surrogate U+D800");
    invalid(c, "utf8-stray-continuation", "6180", "INVALID_UTF8", "a lone continuation byte");
    invalid(c, "keys-unsorted", "a2616201616102", "UNSORTED_KEYS", "\"b\" before \"a\"");
    invalid(
        c,
        "keys-sorted-as-strings",
        "a2626161016162 02".replace(" ", ""),
        "UNSORTED_KEYS",
        "\"aa\" before \"b\": string order, not the order of the encodings",
        "DecoderKeyOrder");
    invalid(
        c,
        "keys-negative-before-unsigned",
        "a2200000 01".replace(" ", ""),
        "UNSORTED_KEYS",
        "-1 before 0");
    invalid(c, "keys-duplicate", "a2616101616102", "DUPLICATE_KEY", "the key \"a\" twice");
    invalid(c, "trailing-bytes", "0000", "TRAILING_BYTES", "two items where one is expected");
    invalid(c, "empty-input", "", "TRUNCATED", "no item at all");
    invalid(
        c,
        "truncated-head",
        "19 01".replace(" ", ""),
        "TRUNCATED",
        "a two-byte argument cut after one byte");
    invalid(c, "truncated-map", "a16161", "TRUNCATED", "a map of one whose value is missing");
    invalid(
        c,
        "count-beyond-remaining",
        "8200",
        "LENGTH_LIMIT",
        "an array of two with one byte left: refused before reading (SPEC 10.1.5)");
    invalid(
        c,
        "length-beyond-input",
        "5b4000000000000000",
        "LENGTH_LIMIT",
        "a byte string of 2^62 bytes in a 9-byte input");
    invalid(
        c,
        "count-beyond-input",
        "9b0000000100000000",
        "LENGTH_LIMIT",
        "an array of 2^32 items in a 9-byte input");
    invalid(
        c,
        "too-deep",
        "81".repeat(32) + "00",
        "TOO_DEEP",
        "arrays nested one deeper than the limit of 32");
    return new PackGroup(
        "cbor",
        "Canonical CBOR decoding (SPEC 10.1, RFC 8949 §4.2.1 without major type 7): op decode_cbor; "
            + "the reason is the rule of SPEC 10.1.3 the input breaks first.",
        c);
  }

  private static void valid(
      List<PackCase> c, String slug, String cborHex, String comment, String... flags) {
    c.add(
        PackCase.valid("cbor/" + slug, comment, "decode_cbor", obj("cbor", cborHex), obj(), flags));
  }

  private static void invalid(
      List<PackCase> c,
      String slug,
      String cborHex,
      String reason,
      String comment,
      String... flags) {
    c.add(
        PackCase.invalid(
            "cbor/" + slug, comment, "decode_cbor", obj("cbor", cborHex), reason, flags));
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
        Fixtures.requestJson(
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
    expected.put("request", hex(r.toCbor().encode()));
    expected.put("request_id", r.id().hex());
    c.add(
        PackCase.valid(
            "requests/" + slug,
            comment,
            "encode_request",
            obj().set("request", Fixtures.requestJson(r)),
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
            shuffled,
            new org.meshjava.core.weights.WeightsDigest(tiny)));
    List<WeightsFile> single =
        List.of(
            new WeightsFile(
                "config.json", ContentId.ofBytes("{}".getBytes(StandardCharsets.UTF_8))),
            new WeightsFile(
                "model.safetensors",
                ContentId.ofBytes("weights-a".getBytes(StandardCharsets.UTF_8))));
    c.add(
        weightsCase(
            "single-file",
            "config.json and one model.safetensors",
            single,
            new org.meshjava.core.weights.WeightsDigest(single)));
    List<WeightsFile> nested =
        List.of(
            new WeightsFile("config.json", ContentId.ofBytes(new byte[0])),
            new WeightsFile("shards/a.safetensors", ContentId.ofBytes(new byte[] {1})),
            new WeightsFile("shards/\u00e9.safetensors", ContentId.ofBytes(new byte[] {2})));
    c.add(
        weightsCase(
            "nested-utf8",
            "a shard path under a folder and one with a non-ASCII name, ordered by UTF-8 bytes",
            nested,
            new org.meshjava.core.weights.WeightsDigest(nested)));
    return new PackGroup(
        "weights",
        "The weights digest over a list of (path, BLAKE3) pairs (§3.6, SPEC 50 Bound weights): op weights_digest.",
        c);
  }

  private static PackCase weightsCase(
      String slug,
      String comment,
      List<WeightsFile> files,
      org.meshjava.core.weights.WeightsDigest d) {
    ObjectNode in = obj();
    ArrayNode arr = in.putArray("files");
    for (WeightsFile f : files) {
      ObjectNode o = arr.addObject();
      o.put("path", f.path());
      o.put("blake3", f.digest().hex());
    }
    ObjectNode e = obj();
    e.put("weights_canonical", hex(d.toCbor().encode()));
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
    return new PackGroup(
        "routes",
        "The cheapest admissible backend and the route justification text (§4, SPEC 20 §6): op route.",
        c);
  }

  private static ObjectNode routeInput(ServeRequest r, List<Backend> backends) {
    ObjectNode in = obj();
    in.set("request", Fixtures.requestJson(r));
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
    generate(
        c,
        "reference-vector",
        "the reference vector's 16 tokens",
        ReferenceInputs.v1Generation(),
        16);
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
        ReferenceInputs.v1Generation(),
        1);
    generate(
        c,
        "zero-rounds-is-one",
        "work_per_token 0 is taken as 1",
        ReferenceInputs.v1Generation(),
        0);
    ReferenceInputs d = ReferenceInputs.v1Decision();
    generate(c, "decision-emits-nothing", "a decision request emits no tokens", d, 16);
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
    input.set("request", Fixtures.requestJson(in.request()));
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
