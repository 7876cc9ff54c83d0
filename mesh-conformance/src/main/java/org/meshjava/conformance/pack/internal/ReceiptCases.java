package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.cat;
import static org.meshjava.conformance.pack.internal.Fixtures.entries;
import static org.meshjava.conformance.pack.internal.Fixtures.envelope;
import static org.meshjava.conformance.pack.internal.Fixtures.head;
import static org.meshjava.conformance.pack.internal.Fixtures.hex;
import static org.meshjava.conformance.pack.internal.Fixtures.map;
import static org.meshjava.conformance.pack.internal.Fixtures.obj;
import static org.meshjava.conformance.pack.internal.Fixtures.replace;
import static org.meshjava.conformance.pack.internal.Fixtures.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.router.Router;

/**
 * The pack's receipt groups: receipts that must verify (encoded, sealed and opened), receipts that
 * must be refused with their reason (§6.1, §3.2.1, §3.3, §3.6, SPEC 20 §2), and envelopes broken at
 * the COSE layer (SPEC 20 §3).
 */
final class ReceiptCases {
  private ReceiptCases() {}

  /** The reference vector's receipt view: a generation at genesis. */
  static ObjectNode reference() {
    return Fixtures.view(Fixtures.serve(ReferenceInputs.v1Generation()).sealed());
  }

  static ObjectNode decision() {
    return Fixtures.view(Fixtures.serve(ReferenceInputs.v1Decision()).sealed());
  }

  static ObjectNode commitment() {
    return Fixtures.view(Fixtures.serve(ReferenceInputs.v1Commitment()).sealed());
  }

  /** The leaf grant id of SPEC 30's worked example, which granted receipts debit. */
  static String grantId() {
    return GrantCases.specChain().leaf().id().hex();
  }

  /**
   * The values a receipt catalogue names with {@code $}: computed here from the published receipts
   * and SPEC 30's example, so that the cases stay consistent with them.
   */
  private static Map<String, JsonNode> named(ObjectNode ref, ObjectNode decision) {
    String requestId = ref.get("request_id").asText();
    return Map.ofEntries(
        textValue("$reference-envelope-id", Fixtures.sealValid(ref).envelope().id().hex()),
        textValue("$four-backend-route", multiBackendRoute()),
        textValue("$spec-leaf-grant-id", grantId()),
        textValue("$reference-request-id", requestId),
        textValue("$reference-request-id-upper-case", requestId.toUpperCase(java.util.Locale.ROOT)),
        textValue("$reference-request-id-short", requestId.substring(1)),
        textValue("$reference-nonce-15-bytes", ref.get("nonce").asText().substring(2)),
        textValue("$reference-output-commitment", ref.get("output_commitment").asText()),
        Map.entry(
            "$decision-uj-per-decision-plus-one",
            Fixtures.NODES.numberNode(decision.get("uj_per_decision").asLong() + 1)),
        Map.entry(
            "$decision-uj-per-option-scored-minus-one",
            Fixtures.NODES.numberNode(decision.get("uj_per_option_scored").asLong() - 1)));
  }

  private static Map.Entry<String, JsonNode> textValue(String name, String value) {
    return Map.entry(name, Fixtures.NODES.textNode(value));
  }

  /**
   * A catalogued receipt's view: its base receipt ({@code reference}, {@code decision} or {@code
   * commitment}) with the case's fields set, then removed, then its derived figures recomputed
   * where {@code derive} is true.
   */
  private static ObjectNode catalogued(
      JsonNode k, Map<String, ObjectNode> bases, Map<String, JsonNode> named) {
    ObjectNode base = bases.get(k.get("base").asText());
    if (base == null) {
      throw new IllegalArgumentException("no base receipt " + k.get("base"));
    }
    ObjectNode v = base.deepCopy();
    for (Map.Entry<String, JsonNode> f : k.path("set").properties()) {
      JsonNode value = f.getValue();
      boolean isNamed = value.isTextual() && value.asText().startsWith("$");
      v.set(f.getKey(), isNamed ? Objects.requireNonNull(named.get(value.asText())) : value);
    }
    k.path("remove").forEach(r -> v.remove(r.asText()));
    return k.path("derive").asBoolean() ? Fixtures.derive(v) : v;
  }

  /** The route a router of four backends writes for the reference request (SPEC 20 §6). */
  static String multiBackendRoute() {
    List<org.meshjava.core.ServingEngine> engines = new ArrayList<>();
    for (EncodingCases.Backend b : EncodingCases.FOUR) {
      engines.add(
          org.meshjava.engine.ReferenceEngine.builder()
              .name(b.name())
              .fidelity(org.meshjava.core.Fidelity.of(b.fidelity()))
              .costProfile(new org.meshjava.core.CostProfile(b.ujPerToken(), b.ujPerOption()))
              .build());
    }
    try {
      return new Router(engines).route(ReferenceInputs.v1Generation().request()).justification();
    } catch (org.meshjava.router.NoAdmissibleBackendException e) {
      throw new IllegalStateException(e);
    }
  }

  static PackGroup valid() {
    List<PackCase> c = new ArrayList<>();
    ObjectNode ref = reference();
    ObjectNode decision = decision();
    Map<String, ObjectNode> bases =
        Map.of("reference", ref, "decision", decision, "commitment", commitment());
    Map<String, JsonNode> named = named(ref, decision);
    for (JsonNode k : Fixtures.catalogue("valid-receipts.json").get("cases")) {
      String slug = k.get("slug").asText();
      String comment = k.get("comment").asText();
      SealedReceipt s = Fixtures.sealValid(catalogued(k, bases, named));
      ObjectNode canonicalView = Fixtures.view(s);
      String core = hex(s.receipt().encodeSignedCore());
      c.add(
          PackCase.valid(
              "receipts-valid/" + slug + "-encode",
              comment + "; encodes to its signed core",
              "encode_core",
              (ObjectNode) obj().set("receipt", canonicalView),
              obj("signed_core", core),
              keyOrderFlag()));
      ObjectNode sealIn = obj();
      sealIn.put("signed_core", core);
      sealIn.put("seed", hex(Fixtures.SEED));
      c.add(
          PackCase.valid(
              "receipts-valid/" + slug + "-seal",
              comment + "; seals to its envelope",
              "seal",
              sealIn,
              obj("envelope", s.envelope().hex())));
      ObjectNode expected = obj();
      expected.put("envelope_id", s.envelope().id().hex());
      expected.set("receipt", canonicalView);
      c.add(
          PackCase.valid(
              "receipts-valid/" + slug + "-verify",
              comment + "; verifies",
              "verify_envelope",
              obj("envelope", s.envelope().hex()),
              expected));
    }
    return new PackGroup(
        "receipts-valid",
        "Receipts that must encode, seal and verify (§6.1, §6.2, SPEC 20 §2-3): ops encode_core, seal, verify_envelope.",
        c);
  }

  /**
   * The flag of an encoding case that an encoder sorting map keys as strings, rather than by their
   * encoded bytes, gets wrong: every signed core has keys of several lengths.
   */
  private static String keyOrderFlag() {
    return "EncoderKeyOrder";
  }

  // --- receipts that must be refused -----------------------------------------------------------

  static PackGroup invalid() {
    List<PackCase> c = new ArrayList<>();
    ObjectNode ref = reference();
    CborMap refCore = Fixtures.rawCore(ref);
    List<byte[][]> pairs = entries(refCore);

    // Non-canonical CBOR in the payload, each kind once.
    cbor(
        c,
        "non-shortest-uint",
        "tokens_in 9 written with a one-byte argument",
        map(replace(pairs, "tokens_in", head(0, 9, 1))));
    cbor(
        c,
        "non-shortest-uint16",
        "sequence 0 written with a two-byte argument",
        map(replace(pairs, "sequence", head(0, 0, 2))));
    cbor(
        c,
        "non-shortest-map-head",
        "the core map's entry count written with a one-byte argument",
        cat(head(5, pairs.size(), 1), Arrays.copyOfRange(map(pairs), 1, map(pairs).length)));
    cbor(
        c,
        "non-shortest-text-length",
        "the route's length written with a two-byte argument",
        map(
            replace(
                pairs,
                "route",
                cat(
                    head(3, ref.get("route").asText().length(), 2),
                    ref.get("route").asText().getBytes(StandardCharsets.UTF_8)))));
    cbor(
        c,
        "non-shortest-nonce-length",
        "the 16-byte nonce's length written with a one-byte argument",
        map(
            replace(
                pairs,
                "nonce",
                cat(head(2, 16, 1), Fixtures.HEX.parseHex(ref.get("nonce").asText())))));
    List<byte[][]> swapped = new ArrayList<>(pairs);
    java.util.Collections.swap(swapped, 0, 1);
    cbor(c, "unsorted-keys", "the first two keys (nonce, route) swapped", map(swapped));
    List<byte[][]> stringOrder = new ArrayList<>(pairs);
    // Every receipt key is shorter than 24 bytes, so its head is one byte: drop it to get the text.
    stringOrder.sort(
        (a, b) ->
            new String(a[0], 1, a[0].length - 1, StandardCharsets.UTF_8)
                .compareTo(new String(b[0], 1, b[0].length - 1, StandardCharsets.UTF_8)));
    refused(
        c,
        "keys-in-string-order",
        "keys sorted as strings (backend first) instead of by their encodings",
        map(stringOrder),
        "NOT_CANONICAL_CBOR",
        "Cbor",
        "DecoderKeyOrder");
    List<byte[][]> dup = new ArrayList<>(pairs);
    int ti = indexOf(pairs, "tokens_in");
    dup.add(ti + 1, pairs.get(ti));
    cbor(c, "duplicate-key", "tokens_in twice", map(dup));
    byte[] whole = map(pairs);
    cbor(
        c,
        "indefinite-map",
        "the core as an indefinite-length map",
        cat(
            new byte[] {(byte) 0xbf},
            Arrays.copyOfRange(whole, 1, whole.length),
            new byte[] {(byte) 0xff}));
    String route = ref.get("route").asText();
    cbor(
        c,
        "indefinite-text",
        "the route as an indefinite-length text of two chunks",
        map(
            replace(
                pairs,
                "route",
                cat(
                    new byte[] {0x7f},
                    text(route.substring(0, 10)),
                    text(route.substring(10)),
                    new byte[] {(byte) 0xff}))));
    cbor(
        c,
        "float",
        "tokens_in as the half-precision float 9.0",
        map(replace(pairs, "tokens_in", new byte[] {(byte) 0xf9, 0x48, (byte) 0x80})));
    cbor(
        c,
        "boolean",
        "fidelity_met as true instead of 1",
        map(replace(pairs, "fidelity_met", new byte[] {(byte) 0xf5})));
    List<byte[][]> withNull = new ArrayList<>(pairs);
    withNull.add(0, new byte[][] {text("prev"), new byte[] {(byte) 0xf6}});
    cbor(c, "null", "prev as null at genesis instead of absent", map(withNull));
    cbor(c, "trailing-byte", "a byte after the core map", cat(whole, new byte[] {0}));
    cbor(c, "truncated", "the core without its last byte", Arrays.copyOf(whole, whole.length - 1));
    cbor(
        c,
        "invalid-utf8",
        "the route with an overlong UTF-8 sequence",
        map(replace(pairs, "route", cat(head(3, 2), new byte[] {(byte) 0xc0, (byte) 0x80}))));

    // Well-formed CBOR that is not a signed core.
    malformed(
        c,
        "wrong-type-uint-as-text",
        "tokens_in as the text \"9\"",
        map(replace(pairs, "tokens_in", text("9"))),
        "WrongType");
    malformed(
        c,
        "wrong-type-nonce-as-text",
        "the nonce as hex text instead of a byte string",
        map(replace(pairs, "nonce", text(ref.get("nonce").asText()))),
        "WrongType");
    malformed(
        c,
        "wrong-type-route-as-bytes",
        "the route as a byte string",
        map(
            replace(
                pairs,
                "route",
                cat(head(2, route.length()), route.getBytes(StandardCharsets.UTF_8)))),
        "WrongType");
    malformed(
        c,
        "negative-sequence",
        "sequence -1",
        map(replace(pairs, "sequence", new byte[] {0x20})),
        "WrongType");
    malformed(
        c,
        "core-is-array",
        "the payload is an array holding the core map",
        new CborArray(List.of(refCore)).encode(),
        "WrongType");
    malformed(
        c,
        "core-is-tagged",
        "the payload is the core map under tag 24",
        new CborTag(24, refCore).encode(),
        "WrongType");
    List<byte[][]> intKey = new ArrayList<>(pairs);
    intKey.add(0, new byte[][] {new byte[] {0x01}, new byte[] {0x00}});
    malformed(c, "integer-key", "an integer key 1 beside the text keys", map(intKey), "UnknownKey");
    ObjectNode decision = decision();
    Map<String, ObjectNode> bases =
        Map.of("reference", ref, "decision", decision, "commitment", commitment());
    Map<String, JsonNode> named = named(ref, decision);
    for (JsonNode k : Fixtures.catalogue("refused-receipts.json").get("cases")) {
      refused(
          c,
          k.get("slug").asText(),
          k.get("comment").asText(),
          Fixtures.rawCore(catalogued(k, bases, named)).encode(),
          k.get("reason").asText(),
          k.get("flag").asText());
    }
    return new PackGroup(
        "receipts-invalid",
        "Signed cores that must be refused, each inside a correctly signed envelope so that only the payload is at fault (SPEC 20 §2, §3 step 9): op verify_envelope.",
        c);
  }

  private static int indexOf(List<byte[][]> pairs, String key) {
    byte[] k = text(key);
    for (int i = 0; i < pairs.size(); i++) {
      if (Arrays.equals(pairs.get(i)[0], k)) {
        return i;
      }
    }
    throw new IllegalArgumentException(key);
  }

  private static void cbor(List<PackCase> c, String slug, String comment, byte[] payload) {
    refused(c, slug, comment, payload, "NOT_CANONICAL_CBOR", "Cbor");
  }

  private static void malformed(
      List<PackCase> c, String slug, String comment, byte[] payload, String flag) {
    refused(c, slug, comment, payload, "MALFORMED_RECEIPT", flag);
  }

  /** A signed core {@code payload}, correctly signed, that must be refused for {@code reason}. */
  private static void refused(
      List<PackCase> c,
      String slug,
      String comment,
      byte[] payload,
      String reason,
      String... flags) {
    c.add(
        PackCase.invalid(
            "receipts-invalid/" + slug,
            comment,
            "verify_envelope",
            obj("envelope", hex(envelope(payload))),
            reason,
            flags));
  }

  // --- envelopes -------------------------------------------------------------------------------

  static PackGroup envelopes() {
    List<PackCase> c = new ArrayList<>();
    ObjectNode ref = reference();
    byte[] payload = Fixtures.sealValid(ref).receipt().encodeSignedCore();
    byte[] good = envelope(payload);
    byte[] kid = Fixtures.STEWARD.value().getBytes(StandardCharsets.UTF_8);
    CborMap empty = CborMap.of(List.of());
    byte[] protectedHeader = Jcr1.protectedHeader(Fixtures.STEWARD);
    c.add(
        PackCase.valid(
            "envelopes/reference",
            "the reference vector's envelope verifies",
            "verify_envelope",
            obj("envelope", hex(good)),
            obj("envelope_id", org.meshjava.core.ContentId.ofBytes(good).hex())));
    CborArray inner = (CborArray) ((CborTag) decode(good)).content();
    env(c, "untagged", "the COSE_Sign1 array without tag 18", inner.encode(), "WRONG_TAG");
    env(
        c,
        "tag-98",
        "tag 98 (COSE_Sign) instead of 18",
        new CborTag(98, inner).encode(),
        "WRONG_TAG");
    env(
        c,
        "tag-17",
        "tag 17 (COSE_Mac0) instead of 18",
        new CborTag(17, inner).encode(),
        "WRONG_TAG");
    env(
        c,
        "three-items",
        "an array of three (no signature)",
        new CborTag(18, new CborArray(inner.items().subList(0, 3))).encode(),
        "MALFORMED_ENVELOPE");
    List<org.meshjava.core.cbor.CborValue> textPayload = new ArrayList<>(inner.items());
    textPayload.set(2, CborText.of("payload"));
    env(
        c,
        "payload-as-text",
        "the payload as a text string",
        new CborTag(18, new CborArray(textPayload)).encode(),
        "MALFORMED_ENVELOPE");
    List<org.meshjava.core.cbor.CborValue> mapHeader = new ArrayList<>(inner.items());
    mapHeader.set(0, decode(protectedHeader));
    env(
        c,
        "protected-as-map",
        "the protected header as a map, not a byte string",
        new CborTag(18, new CborArray(mapHeader)).encode(),
        "MALFORMED_ENVELOPE");
    env(
        c,
        "alg-es256",
        "algorithm -7 (ES256) instead of -8",
        envelope(header(CborInt.of(-7), CborBytes.of(kid), null), empty, payload, Fixtures.KEY),
        "UNSUPPORTED_ALGORITHM");
    env(
        c,
        "alg-missing",
        "no algorithm in the protected header",
        envelope(header(null, CborBytes.of(kid), null), empty, payload, Fixtures.KEY),
        "UNSUPPORTED_ALGORITHM");
    env(
        c,
        "extra-protected-label",
        "a content type (label 3) beside alg and kid",
        envelope(
            header(CborInt.of(-8), CborBytes.of(kid), CborText.of("application/cbor")),
            empty,
            payload,
            Fixtures.KEY),
        "UNEXPECTED_HEADER");
    env(
        c,
        "kid-missing",
        "no kid in the protected header",
        envelope(header(CborInt.of(-8), null, null), empty, payload, Fixtures.KEY),
        "BAD_KID");
    env(
        c,
        "kid-as-text",
        "the kid as a text string instead of a byte string",
        envelope(
            header(CborInt.of(-8), CborText.of(Fixtures.STEWARD.value()), null),
            empty,
            payload,
            Fixtures.KEY),
        "BAD_KID");
    env(
        c,
        "kid-not-did-key",
        "a kid that is not a did:key",
        envelope(
            header(
                CborInt.of(-8), CborBytes.of("steward-1".getBytes(StandardCharsets.UTF_8)), null),
            empty,
            payload,
            Fixtures.KEY),
        "BAD_KID");
    env(
        c,
        "unprotected-not-empty",
        "the kid repeated in the unprotected header",
        envelope(
            protectedHeader,
            CborMap.builder().put(4, CborBytes.of(kid)).build(),
            payload,
            Fixtures.KEY),
        "UNPROTECTED_NOT_EMPTY");
    byte[] flipped = good.clone();
    flipped[flipped.length - 1] ^= 1;
    env(c, "signature-bit-flipped", "the last signature bit flipped", flipped, "BAD_SIGNATURE");
    env(
        c,
        "kid-not-signer",
        "the kid names the vector steward but another key signed",
        envelope(protectedHeader, empty, payload, Fixtures.OTHER_KEY),
        "BAD_SIGNATURE");
    env(
        c,
        "steward-not-kid",
        "signed correctly by another steward under its own kid, but the core names the vector steward",
        envelope(Jcr1.protectedHeader(Fixtures.OTHER_STEWARD), empty, payload, Fixtures.OTHER_KEY),
        "STEWARD_MISMATCH");
    byte[] edited = good.clone();
    int at =
        indexOfBytes(edited, "\"reference\"".substring(1, 10).getBytes(StandardCharsets.UTF_8));
    edited[at] = 'R';
    env(
        c,
        "payload-edited",
        "one payload byte changed after signing (backend Reference)",
        edited,
        "BAD_SIGNATURE");
    // Non-canonical CBOR at the envelope's own level.
    byte[] nonShortest =
        cat(
            Arrays.copyOfRange(good, 0, 2),
            head(2, protectedHeader.length, 2),
            Arrays.copyOfRange(good, 2 + head(2, protectedHeader.length).length, good.length));
    env(
        c,
        "protected-length-non-shortest",
        "the protected header's length with a two-byte argument",
        nonShortest,
        "NOT_CANONICAL_CBOR");
    byte[] unsortedHeader =
        cat(head(5, 2), new byte[] {0x04}, CborBytes.of(kid).encode(), new byte[] {0x01, 0x27});
    env(
        c,
        "protected-header-unsorted",
        "the protected map with kid (4) before alg (1)",
        envelope(unsortedHeader, empty, payload, Fixtures.KEY),
        "NOT_CANONICAL_CBOR");
    env(
        c,
        "trailing-byte",
        "a byte after the envelope",
        cat(good, new byte[] {0}),
        "NOT_CANONICAL_CBOR");
    env(
        c,
        "indefinite-array",
        "the COSE array with indefinite length",
        cat(
            new byte[] {(byte) 0xd2, (byte) 0x9f},
            Arrays.copyOfRange(good, 2, good.length),
            new byte[] {(byte) 0xff}),
        "NOT_CANONICAL_CBOR");
    return new PackGroup(
        "envelopes",
        "JCR-1 envelopes broken at the COSE layer, refused at the first failing step of SPEC 20 §3: op verify_envelope.",
        c);
  }

  private static org.meshjava.core.cbor.CborValue decode(byte[] b) {
    try {
      return org.meshjava.core.cbor.CanonicalCbor.decode(b);
    } catch (org.meshjava.core.cbor.CborDecodeException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int indexOfBytes(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i <= hay.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException("not found");
  }

  private static byte[] header(
      org.meshjava.core.cbor.@Nullable CborValue alg,
      org.meshjava.core.cbor.@Nullable CborValue kid,
      org.meshjava.core.cbor.@Nullable CborValue contentType) {
    CborMap.Builder b = CborMap.builder();
    if (alg != null) {
      b.put(1, alg);
    }
    if (contentType != null) {
      b.put(3, contentType);
    }
    if (kid != null) {
      b.put(4, kid);
    }
    return b.build().encode();
  }

  private static void env(
      List<PackCase> c, String slug, String comment, byte[] envelope, String reason) {
    c.add(
        PackCase.invalid(
            "envelopes/" + slug,
            comment,
            "verify_envelope",
            obj("envelope", hex(envelope)),
            reason));
  }
}
