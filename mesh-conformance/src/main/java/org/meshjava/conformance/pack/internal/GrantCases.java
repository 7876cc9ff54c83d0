package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.obj;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Caveat;
import org.meshjava.jcp.Grant;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.IssuanceException;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.MaxCostUj;
import org.meshjava.jcp.ModelIn;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.jcp.Resources;
import org.meshjava.jcp.SignedGrant;

/**
 * The pack's groups about grants: deciding a presentation of a grant chain (§2, §2.1, §7 item 1,
 * SPEC 30), one case per denial label, built around SPEC 30 §10's worked example; and the request a
 * body of the OpenAI binding derives to (§2.3, SPEC 70).
 */
final class GrantCases {
  private GrantCases() {}

  static final SigningKey ORG = SigningKey.fromSeed(Fixtures.repeated(1));
  static final SigningKey CALLER = SigningKey.fromSeed(Fixtures.repeated(2));
  static final SigningKey STEWARD = SigningKey.fromSeed(Fixtures.repeated(3));
  static final SigningKey AGENT = SigningKey.fromSeed(Fixtures.repeated(4));
  static final SigningKey STRANGER = SigningKey.fromSeed(Fixtures.repeated(5));
  static final Instant T0 = Instant.ofEpochSecond(1_800_000_000L);
  static final Instant T_END = T0.plusSeconds(3600);
  static final Instant NOW = T0.plusSeconds(60);
  static final ContentId WEIGHTS_A =
      ContentId.ofBytes("weights-a".getBytes(StandardCharsets.US_ASCII));
  static final ContentId WEIGHTS_B =
      ContentId.ofBytes("weights-b".getBytes(StandardCharsets.US_ASCII));
  static final ServeRequest REQUEST =
      ServeRequest.generation(
          ContentId.ofBytes("hello".getBytes(StandardCharsets.US_ASCII)),
          5,
          new ServeBounds(16, Fidelity.F2, 1000));
  static final ServeRequest OTHER_REQUEST =
      ServeRequest.generation(REQUEST.promptHash(), 5, new ServeBounds(17, Fidelity.F2, 1000));

  static DidKey did(SigningKey k) {
    return DidKey.of(k.verificationKey());
  }

  static PresentationNonce nonce(int b) {
    byte[] n = new byte[16];
    java.util.Arrays.fill(n, (byte) b);
    return PresentationNonce.of(n);
  }

  /** SPEC 30 §10: org to caller (ModelIn weights-a), caller to steward (MaxCostUj 500 000). */
  static GrantChain specChain() {
    try {
      GrantChain root =
          Jcp.issueRoot(ORG, did(CALLER), 10_000_000, T0, T_END, ModelIn.of(WEIGHTS_A));
      return Jcp.delegate(CALLER, root, did(STEWARD), 2_000_000, new MaxCostUj(500_000));
    } catch (IssuanceException e) {
      throw new IllegalStateException(e);
    }
  }

  static GrantChain specRoot() {
    return new GrantChain(List.of(specChain().root()));
  }

  /**
   * Signs {@code g} with {@code key}, whatever it says: for chains the issuing API would refuse.
   */
  static SignedGrant signed(SigningKey key, Grant g) {
    return SignedGrant.of(g, key.sign(g.encode()));
  }

  /** A caveat of a kind no implementation knows, read from its wire form {@code map}. */
  private static Caveat unknownCaveat(CborMap map) {
    try {
      return Caveat.decode(map.encode());
    } catch (MalformedGrantException e) {
      throw new IllegalStateException("the pack's own caveat does not decode", e);
    }
  }

  /**
   * The spec root with a leaf built from the spec leaf's fields, changed by {@code edit}, signed by
   * {@code signer}.
   */
  static GrantChain leafVariant(SigningKey signer, UnaryOperator<Grant.Builder> edit) {
    SignedGrant root = specChain().root();
    Grant.Builder b =
        Grant.delegatedFrom(root)
            .subject(did(STEWARD))
            .budgetUj(2_000_000)
            .caveat(new MaxCostUj(500_000));
    return new GrantChain(List.of(root, signed(signer, edit.apply(b).build())));
  }

  static Presentation present(SigningKey caller, GrantChain chain, ServeRequest r, int nonce) {
    try {
      return Presentation.sign(caller, chain, r.id(), nonce(nonce));
    } catch (IssuanceException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A case's input: the steward of SPEC 30 §10, the request, the model, at NOW unless changed. */
  static ObjectNode decideInput(
      Presentation p, ServeRequest r, @Nullable ContentId model, Instant at) {
    ObjectNode in = obj();
    in.put("steward", did(STEWARD).value());
    in.put("presentation", p.toHex());
    in.set("request", ReferenceInputs.requestJson(r));
    if (model == null) {
      in.putNull("model");
    } else {
      in.put("model", model.hex());
    }
    in.put("at_ms", at.toEpochMilli());
    in.putArray("revocations");
    in.putArray("history");
    return in;
  }

  static PackGroup grants() {
    List<PackCase> c = new ArrayList<>();
    GrantChain spec = specChain();
    Presentation p = present(CALLER, spec, REQUEST, 7);
    String leaf = spec.leaf().id().hex();

    c.add(
        decision(
                "spec-example",
                "SPEC 30 §10: admitted at 1800000060 on weights-a; debiting 600000 uJ breaches MaxCostUj")
            .debiting(600_000)
            .admitted(
                expect(leaf, 1_999_000)
                    .put("breach", "caveat-unsatisfied")
                    .put("remaining_after_debit_uj", 1_400_000)));
    c.add(
        decision("debit-within", "the same serve debiting 400000 uJ: no breach")
            .debiting(400_000)
            .admitted(
                expect(leaf, 1_999_000)
                    .putNull("breach")
                    .put("remaining_after_debit_uj", 1_600_000)));
    GrantChain direct = direct(b -> b);
    c.add(
        decision(
                "direct-grant",
                "a chain of one: the caller grants the steward directly, no caveats, a backend naming no weights")
            .presented(CALLER, direct, 1)
            .model(null)
            .admitted(expect(direct.leaf().id().hex(), 9_000)));
    GrantChain three = threeLinks();
    c.add(
        decision(
                "three-links",
                "org to caller to agent to steward, presented by the agent (the leaf's issuer)")
            .presented(AGENT, three, 2)
            .admitted(expect(three.leaf().id().hex(), 999_000)));
    GrantChain only = direct(b -> b.resources(Resources.only(Set.of(REQUEST.id()))));
    c.add(
        decision("resource-listed", "resources listing exactly this request id")
            .presented(CALLER, only, 3)
            .model(null)
            .admitted(expect(only.leaf().id().hex(), 9_000)));
    GrantChain exact = direct(b -> b.budgetUj(1000));
    c.add(
        decision("budget-equals-ceiling", "a budget exactly the request's ceiling is enough")
            .presented(CALLER, exact, 4)
            .model(null)
            .admitted(expect(exact.leaf().id().hex(), 0)));
    c.add(
        decision(
                "revoked-later",
                "revoked from one millisecond after the decision: the decision stands")
            .editing(in -> revoke(in, spec.leaf().id(), NOW.plusMillis(1)))
            .admitted(expect(leaf, 1_999_000)));
    GrantChain small = direct(b -> b.budgetUj(2000));
    c.add(
        decision(
                "debit-overspends",
                "a debit of 2500 uJ on a 2000 uJ budget: debited anyway, breach budget-exhausted")
            .presented(CALLER, small, 5)
            .model(null)
            .debiting(2500)
            .admitted(
                expect(small.leaf().id().hex(), 1000)
                    .put("breach", "budget-exhausted")
                    .put("remaining_after_debit_uj", 0)));
    Presentation earlier = present(CALLER, spec, REQUEST, 8);
    c.add(
        decision(
                "after-earlier-serve",
                "an earlier serve debited 1500000 uJ: 499000 left after reserving this ceiling")
            .editing(in -> history(in, earlier, REQUEST, WEIGHTS_A, NOW.minusSeconds(1), 1_500_000))
            .admitted(expect(leaf, 499_000)));

    // One case per denial label of SPEC 30 §9.
    c.add(
        decision("malformed", "an empty map is not a presentation")
            .editing(in -> in.put("presentation", "a0"))
            .denied("malformed"));
    String truncated = p.toHex().substring(0, p.toHex().length() - 2);
    c.add(
        decision("malformed-truncated", "the presentation cut by one byte")
            .editing(in -> in.put("presentation", truncated))
            .denied("malformed"));
    Presentation byOrg =
        Presentation.of(
            spec,
            did(ORG),
            nonce(7),
            ORG.sign(
                Presentation.signedPayload(REQUEST.id(), spec.leaf().id(), did(ORG), nonce(7))));
    c.add(
        decision("not-issuer", "the org presents a grant whose leaf the caller issued")
            .presentation(byOrg)
            .denied("not-issuer"));
    c.add(
        decision("bad-signature-other-request", "a presentation signed for another request")
            .request(OTHER_REQUEST)
            .denied("bad-signature"));
    byte[] sig = p.signature();
    sig[0] ^= 1;
    c.add(
        decision("bad-signature-presentation", "the caller's signature with one bit flipped")
            .presentation(Presentation.of(spec, did(CALLER), nonce(7), sig))
            .denied("bad-signature"));
    SignedGrant forgedRoot = signed(CALLER, specChain().root().grant());
    GrantChain forged =
        new GrantChain(
            List.of(
                forgedRoot,
                signed(
                    CALLER,
                    Grant.delegatedFrom(forgedRoot)
                        .subject(did(STEWARD))
                        .budgetUj(2_000_000)
                        .build())));
    c.add(
        decision("bad-signature-link", "the root signed by the caller, not by its issuer the org")
            .chain(forged)
            .denied("bad-signature"));
    c.add(
        decision("broken-chain-parent", "the leaf names another parent id")
            .chain(leafVariant(CALLER, b -> b.parent(new GrantId(WEIGHTS_B))))
            .denied("broken-chain"));
    c.add(
        decision(
                "broken-chain-issuer", "the leaf is issued by the agent, not by the root's subject")
            .presented(AGENT, leafVariant(AGENT, b -> b.issuer(did(AGENT))), 7)
            .denied("broken-chain"));
    c.add(
        decision("not-attenuated-budget", "the leaf's budget 20000000 exceeds the root's 10000000")
            .chain(leafVariant(CALLER, b -> b.budgetUj(20_000_000)))
            .denied("not-attenuated"));
    c.add(
        decision("not-attenuated-action", "the leaf adds the action train")
            .chain(leafVariant(CALLER, b -> b.actions(Set.of("infer", "train"))))
            .denied("not-attenuated"));
    c.add(
        decision("not-attenuated-window", "the leaf's expiry is after the root's")
            .chain(leafVariant(CALLER, b -> b.window(T0, T_END.plusSeconds(1))))
            .denied("not-attenuated"));
    c.add(
        decision("not-attenuated-dropped-caveat", "the leaf drops the root's ModelIn")
            .chain(leafVariant(CALLER, b -> b.caveats(List.of(new MaxCostUj(500_000)))))
            .denied("not-attenuated"));
    c.add(
        decision("not-attenuated-model-set", "the leaf's ModelIn adds weights-b")
            .chain(
                leafVariant(
                    CALLER,
                    b ->
                        b.caveats(
                            List.of(new MaxCostUj(500_000), ModelIn.of(WEIGHTS_A, WEIGHTS_B)))))
            .denied("not-attenuated"));
    c.add(
        decision(
                "not-attenuated-resources",
                "the root lists one request; the leaf widens to every request")
            .chain(rootThen(Resources.only(Set.of(REQUEST.id())), Resources.all()))
            .denied("not-attenuated"));
    GrantChain unknown =
        leafVariant(
            CALLER,
            b ->
                b.caveat(
                    unknownCaveat(
                        CborMap.builder().put("caveat", "Geofence").put("region", "eu").build())));
    c.add(
        decision("unknown-caveat", "the leaf carries a Geofence caveat no gate knows (fail closed)")
            .chain(unknown)
            .denied("unknown-caveat"));
    c.add(
        decision("wrong-holder", "the leaf is held by another steward")
            .chain(leafVariant(CALLER, b -> b.subject(did(STRANGER))))
            .denied("wrong-holder"));
    c.add(
        decision("not-yet-valid", "decided one millisecond before not_before")
            .at(T0.minusMillis(1))
            .denied("not-yet-valid"));
    c.add(
        decision("expired", "decided exactly at expiry (the window is half-open)")
            .at(T_END)
            .denied("expired"));
    c.add(
        decision("revoked", "the root revoked from the decision time itself")
            .editing(in -> revoke(in, spec.root().id(), NOW))
            .denied("revoked"));
    c.add(
        decision("action-not-permitted", "a grant for summarise, not infer")
            .chain(direct(b -> b.actions(Set.of("summarise"))))
            .model(null)
            .denied("action-not-permitted"));
    c.add(
        decision("resource-not-permitted", "a grant listing only another request id")
            .chain(direct(b -> b.resources(Resources.only(Set.of(OTHER_REQUEST.id())))))
            .model(null)
            .denied("resource-not-permitted"));
    c.add(
        decision("caveat-unsatisfied-model", "ModelIn weights-a, the backend runs weights-b")
            .model(WEIGHTS_B)
            .denied("caveat-unsatisfied"));
    c.add(
        decision(
                "caveat-unsatisfied-no-model",
                "ModelIn, and the backend names no weights (§2 phase 1)")
            .model(null)
            .denied("caveat-unsatisfied"));
    c.add(
        decision(
                "presentation-spent",
                "the same presentation (leaf and nonce) spent by an earlier serve")
            .editing(in -> history(in, p, REQUEST, WEIGHTS_A, NOW.minusSeconds(1), 1000))
            .denied("presentation-spent"));
    ServeRequest big =
        ServeRequest.generation(
            REQUEST.promptHash(), 5, new ServeBounds(16, Fidelity.F2, 2_000_001));
    c.add(
        decision("budget-exhausted-ceiling", "a ceiling of 2000001 uJ on a leaf of 2000000")
            .presentation(present(CALLER, spec, big, 7))
            .request(big)
            .denied("budget-exhausted"));
    c.add(
        decision(
                "budget-exhausted-after-debits",
                "500 uJ left after earlier debits, below the 1000 uJ ceiling")
            .editing(in -> history(in, earlier, REQUEST, WEIGHTS_A, NOW.minusSeconds(1), 1_999_500))
            .denied("budget-exhausted"));
    return new PackGroup(
        "grants",
        "Deciding a grant presentation as the steward's gate, and debiting it (§2, §2.1, §7 item 1, SPEC 30 §8-10): op decide_grant; a refusal's reason is the denial label of SPEC 30 §9.",
        c);
  }

  private static Decision decision(String slug, String comment) {
    return new Decision(slug, comment);
  }

  /**
   * A decide_grant case being built: SPEC 30 §10's chain presented by the caller (nonce 7) for
   * {@link #REQUEST} on weights-a at {@link #NOW}, with no revocations or history, unless a setter
   * says otherwise; the answer it expects ends it.
   */
  private static final class Decision {
    private final String slug;
    private final String comment;
    private Presentation presentation;
    private ServeRequest request = REQUEST;
    private @Nullable ContentId model = WEIGHTS_A;
    private Instant at = NOW;
    private final List<Consumer<ObjectNode>> edits = new ArrayList<>();

    Decision(String slug, String comment) {
      this.slug = slug;
      this.comment = comment;
      this.presentation = present(CALLER, specChain(), REQUEST, 7);
    }

    /** {@code chain} presented by the caller with nonce 7. */
    Decision chain(GrantChain chain) {
      return presented(CALLER, chain, 7);
    }

    /** {@code chain} presented for the request by {@code by} with nonce {@code nonce}. */
    Decision presented(SigningKey by, GrantChain chain, int nonce) {
      return presentation(present(by, chain, REQUEST, nonce));
    }

    Decision presentation(Presentation p) {
      presentation = p;
      return this;
    }

    /** The request decided, whatever the presentation was signed for. */
    Decision request(ServeRequest r) {
      request = r;
      return this;
    }

    /** The weights the backend names; null for none. */
    Decision model(@Nullable ContentId m) {
      model = m;
      return this;
    }

    Decision at(Instant t) {
      at = t;
      return this;
    }

    /** After the decision, debit {@code uj}. */
    Decision debiting(long uj) {
      return editing(in -> in.put("debit_uj", uj));
    }

    /** The input, once built, changed by {@code e} (after any earlier edit). */
    Decision editing(Consumer<ObjectNode> e) {
      edits.add(e);
      return this;
    }

    PackCase admitted(ObjectNode expected) {
      return PackCase.valid("grants/" + slug, comment, "decide_grant", input(), expected);
    }

    PackCase denied(String label) {
      return PackCase.invalid(
          "grants/" + slug, comment, "decide_grant", input(), label, "DenialLabel");
    }

    private ObjectNode input() {
      ObjectNode in = decideInput(presentation, request, model, at);
      edits.forEach(e -> e.accept(in));
      return in;
    }
  }

  private static ObjectNode expect(String grantId, long remaining) {
    return obj("grant_id", grantId).put("remaining_uj", remaining);
  }

  private static void revoke(ObjectNode in, GrantId id, Instant from) {
    ObjectNode r =
        ((com.fasterxml.jackson.databind.node.ArrayNode) in.get("revocations")).addObject();
    r.put("grant_id", id.hex());
    r.put("from_ms", from.toEpochMilli());
  }

  private static void history(
      ObjectNode in, Presentation p, ServeRequest r, ContentId model, Instant at, long debit) {
    ObjectNode h = ((com.fasterxml.jackson.databind.node.ArrayNode) in.get("history")).addObject();
    h.put("presentation", p.toHex());
    h.set("request", ReferenceInputs.requestJson(r));
    h.put("model", model.hex());
    h.put("at_ms", at.toEpochMilli());
    h.put("debit_uj", debit);
  }

  /** A direct grant, caller to steward, 10000 uJ, T0 to T_END, edited by {@code edit}. */
  static GrantChain direct(UnaryOperator<Grant.Builder> edit) {
    Grant.Builder b =
        Grant.builder()
            .issuer(did(CALLER))
            .subject(did(STEWARD))
            .actions(Set.of(Grant.INFER))
            .resources(Resources.all())
            .budgetUj(10_000)
            .window(T0, T_END);
    return new GrantChain(List.of(signed(CALLER, edit.apply(b).build())));
  }

  private static GrantChain threeLinks() {
    try {
      GrantChain root =
          Jcp.issueRoot(ORG, did(CALLER), 10_000_000, T0, T_END, ModelIn.of(WEIGHTS_A));
      GrantChain mid = Jcp.delegate(CALLER, root, did(AGENT), 5_000_000);
      return Jcp.delegate(AGENT, mid, did(STEWARD), 1_000_000);
    } catch (IssuanceException e) {
      throw new IllegalStateException(e);
    }
  }

  private static GrantChain rootThen(Resources rootResources, Resources leafResources) {
    Grant root =
        Grant.builder()
            .issuer(did(ORG))
            .subject(did(CALLER))
            .actions(Set.of(Grant.INFER))
            .resources(rootResources)
            .budgetUj(10_000_000)
            .window(T0, T_END)
            .build();
    SignedGrant r = signed(ORG, root);
    Grant leaf =
        Grant.delegatedFrom(r)
            .subject(did(STEWARD))
            .resources(leafResources)
            .budgetUj(2_000_000)
            .build();
    return new GrantChain(List.of(r, signed(CALLER, leaf)));
  }

  // --- the OpenAI binding ----------------------------------------------------------------------

  static PackGroup bindings() {
    List<PackCase> c = new ArrayList<>();
    String spec =
        "{\"model\":\"auto\",\"max_tokens\":16,"
            + "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hi \u00e9\"}],"
            + "\"metadata\":{\"fidelity_floor\":\"F1\",\"joule_ceiling_uj\":\"50000\"}}";
    derive(
        c,
        "spec-example",
        "SPEC 70's worked example: prompt text of 32 bytes, request id f8aca9e7...",
        spec);
    derive(
        c,
        "fields-outside-ignored",
        "the same body with temperature, stream, user and other metadata added derives the same id",
        spec.replace(
                "\"model\":\"auto\",",
                "\"model\":null,\"temperature\":0.2,\"stream\":true,\"user\":\"u1\",")
            .replace("\"metadata\":{", "\"metadata\":{\"trace\":\"x\","));
    derive(
        c,
        "model-named",
        "a named model enters the request as its model key (SPEC 70 model); auto or none does not",
        spec.replace("\"model\":\"auto\",", "\"model\":\"small\","));
    derive(
        c,
        "metadata-numbers",
        "metadata as JSON numbers and the floor as a bare level",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"metadata\":{\"fidelity_floor\":2,\"joule_ceiling_uj\":1000,\"prompt_tokens\":3}}");
    derive(
        c,
        "content-parts",
        "content as an array of text parts, joined with nothing between",
        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hel\"},{\"type\":\"text\",\"text\":\"lo\"}]}],\"metadata\":{\"joule_ceiling_uj\":\"1000\"}}");
    derive(
        c,
        "null-content",
        "null content reads as the empty text; max_completion_tokens sets max_tokens",
        "{\"messages\":[{\"role\":\"assistant\",\"content\":null}],\"max_completion_tokens\":7,\"metadata\":{\"joule_ceiling_uj\":\"1\"}}");
    derive(
        c,
        "responses-string",
        "a responses body with a string input: one user message, default 128 max tokens",
        "{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1000\"}}");
    derive(
        c,
        "responses-instructions",
        "instructions become a first system message; max_output_tokens",
        "{\"instructions\":\"Be brief.\",\"input\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_output_tokens\":9,\"metadata\":{\"joule_ceiling_uj\":\"1000\",\"fidelity_floor\":\"3\"}}");
    refuse(
        c,
        "missing-joule-ceiling",
        "a granted body must name its own joule ceiling (§2.3)",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}",
        "missing_joule_ceiling");
    refuse(
        c,
        "duplicate-key",
        "a duplicate key makes a signed body readable two ways",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"metadata\":{\"joule_ceiling_uj\":\"1\",\"joule_ceiling_uj\":\"2\"}}",
        "not_json");
    refuse(
        c,
        "trailing-text",
        "text after the object",
        "{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1\"}} {}",
        "not_json");
    refuse(
        c,
        "byte-order-mark",
        "a body that begins with a byte-order mark (U+FEFF, the bytes EF BB BF): JSON on the wire is UTF-8 without one, so a body has one reading byte for byte (RFC 8259 §8.1, SPEC 70)",
        "\uFEFF{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "not_utf8");
    refuse(
        c,
        "zero-byte",
        "a body holding a zero byte, which UTF-8 JSON never holds raw and UTF-16 or UTF-32 JSON always does (SPEC 70)",
        "{\"input\":\"H\u0000i\",\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "not_utf8");
    refuse(
        c,
        "unpaired-surrogate",
        "a body holding an unpaired surrogate (U+D800 as a character of the body, not a JSON escape in it), which has no UTF-8 encoding (SPEC 70)",
        "{\"input\":\"H\uD800i\",\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "not_utf8");
    refuse(
        c,
        "metadata-exponent",
        "a ceiling written 1e3",
        "{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1e3\"}}",
        "invalid_metadata");
    refuse(
        c,
        "metadata-negative",
        "a ceiling written -5",
        "{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"-5\"}}",
        "invalid_metadata");
    refuse(
        c,
        "floor-f5",
        "a fidelity floor of F5",
        "{\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1\",\"fidelity_floor\":\"F5\"}}",
        "invalid_metadata");
    refuse(
        c,
        "max-tokens-disagree",
        "max_tokens and max_completion_tokens both present and unequal",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":5,\"max_completion_tokens\":6,\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "invalid_field");
    refuse(
        c,
        "max-tokens-zero",
        "max_tokens 0, below its range of 1 to 2^32-1: the reason is invalid_field, not OpenAI's wire code integer_below_min_value",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":0,\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "invalid_field");
    refuse(
        c,
        "messages-and-input",
        "a body with both messages and input",
        "{\"messages\":[],\"input\":\"Hi\",\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "invalid_field");
    refuse(
        c,
        "image-part",
        "a content part that is not text",
        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}],\"metadata\":{\"joule_ceiling_uj\":\"1\"}}",
        "unsupported");
    return new PackGroup(
        "bindings",
        "granted_serve_request: the request an OpenAI-style body derives to (§2.3, SPEC 70): op derive_request; the reason is the binding's reason in lower case (BindingException.Reason), never OpenAI's wire code for the same fault.",
        c);
  }

  private static void derive(List<PackCase> c, String slug, String comment, String body) {
    ObjectNode in = obj("body", body);
    ObjectNode out;
    try {
      out = new MeshJavaPackSubject().perform("derive_request", in).orElseThrow();
    } catch (Exception e) {
      throw new IllegalStateException("bindings/" + slug + ": " + e.getMessage(), e);
    }
    c.add(PackCase.valid("bindings/" + slug, comment, "derive_request", in, out));
  }

  private static void refuse(
      List<PackCase> c, String slug, String comment, String body, String code) {
    c.add(PackCase.invalid("bindings/" + slug, comment, "derive_request", obj("body", body), code));
  }
}
