package org.meshjava.receipt;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.Provenance;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;

/**
 * The mapping between a {@link MeshReceipt} and its signed core, the canonical CBOR map of §6.1
 * with text keys. Absent options are dropped, booleans are 0|1, and there are no floats or nulls.
 * Decoding is strict: an unknown key, a mistyped value or a derived figure that does not match is
 * refused, because a verifier that ignored such a key would vouch for bytes it did not read.
 *
 * <p>Stateless and thread-safe. The exact key table is in SPEC.md section 20 §2.
 */
final class SignedCore {
  static final String MESH_RECEIPT = "mesh_receipt";
  static final String REQUEST_ID = "request_id";
  static final String GRANT_ID = "grant_id";
  static final String BACKEND = "backend";
  static final String RECIPE = "recipe";
  static final String WEIGHTS_DIGEST = "weights_digest";
  static final String PRECISION = "precision";
  static final String ROUTE = "route";
  static final String TOKENS_IN = "tokens_in";
  static final String TOKENS_OUT = "tokens_out";
  static final String TOKENS_ACCEPTED = "tokens_accepted";
  static final String CACHE_HIT_TOKENS = "cache_hit_tokens";
  static final String SPEC_PROPOSED = "spec_proposed";
  static final String SPEC_ACCEPTED = "spec_accepted";
  static final String FIDELITY_FLOOR = "fidelity_floor";
  static final String FIDELITY_ADVERTISED = "fidelity_advertised";
  static final String FIDELITY_DELIVERED = "fidelity_delivered";
  static final String FIDELITY_MET = "fidelity_met";
  static final String ESTIMATED_UJ = "estimated_uj";
  static final String MEASURED_UJ = "measured_uj";
  static final String UJ_PER_ACCEPTED_TOKEN = "uj_per_accepted_token";
  static final String QUESTIONS_ANSWERED = "questions_answered";
  static final String OPTIONS_SCORED = "options_scored";
  static final String SCHEMA_TOKENS = "schema_tokens";
  static final String UJ_PER_DECISION = "uj_per_decision";
  static final String UJ_PER_OPTION_SCORED = "uj_per_option_scored";
  static final String ENERGY_PROVENANCE = "energy_provenance";
  static final String GRANT_BREACH = "grant_breach";
  static final String OUTPUT_COMMITMENT = "output_commitment";
  static final String SEQUENCE = "sequence";
  static final String PREV = "prev";
  static final String NONCE = "nonce";
  static final String STEWARD = "steward";

  private static final Set<String> KNOWN =
      Set.of(
          MESH_RECEIPT,
          REQUEST_ID,
          GRANT_ID,
          BACKEND,
          RECIPE,
          WEIGHTS_DIGEST,
          PRECISION,
          ROUTE,
          TOKENS_IN,
          TOKENS_OUT,
          TOKENS_ACCEPTED,
          CACHE_HIT_TOKENS,
          SPEC_PROPOSED,
          SPEC_ACCEPTED,
          FIDELITY_FLOOR,
          FIDELITY_ADVERTISED,
          FIDELITY_DELIVERED,
          FIDELITY_MET,
          ESTIMATED_UJ,
          MEASURED_UJ,
          UJ_PER_ACCEPTED_TOKEN,
          QUESTIONS_ANSWERED,
          OPTIONS_SCORED,
          SCHEMA_TOKENS,
          UJ_PER_DECISION,
          UJ_PER_OPTION_SCORED,
          ENERGY_PROVENANCE,
          GRANT_BREACH,
          OUTPUT_COMMITMENT,
          SEQUENCE,
          PREV,
          NONCE,
          STEWARD);

  private SignedCore() {}

  static CborMap encode(MeshReceipt r) {
    CborMap.Builder b = CborMap.builder();
    b.put(MESH_RECEIPT, MeshReceipt.PROFILE);
    b.put(REQUEST_ID, r.requestId().hex());
    r.grantId().ifPresent(g -> b.put(GRANT_ID, g.hex()));
    b.put(BACKEND, r.backend());
    b.put(RECIPE, r.recipe());
    r.weights()
        .ifPresent(
            w -> {
              b.put(WEIGHTS_DIGEST, w.digest().hex());
              b.put(PRECISION, w.precision());
            });
    b.put(ROUTE, r.route());
    OutcomeCounters c = r.counters();
    b.put(TOKENS_IN, c.tokensIn());
    b.put(TOKENS_OUT, c.tokensOut());
    b.put(TOKENS_ACCEPTED, c.tokensAccepted());
    b.put(CACHE_HIT_TOKENS, c.cacheHitTokens());
    b.put(SPEC_PROPOSED, c.specProposed());
    b.put(SPEC_ACCEPTED, c.specAccepted());
    b.put(FIDELITY_FLOOR, r.fidelityFloor().level());
    r.fidelityReport()
        .ifPresent(
            f -> {
              b.put(FIDELITY_ADVERTISED, f.advertised().level());
              b.put(FIDELITY_DELIVERED, f.delivered().level());
            });
    b.put(FIDELITY_MET, r.fidelityMet() ? 1 : 0);
    b.put(ESTIMATED_UJ, r.energy().estimatedUj());
    r.energy().measuredUj().ifPresent(m -> b.put(MEASURED_UJ, m));
    r.ujPerAcceptedToken().ifPresent(v -> b.put(UJ_PER_ACCEPTED_TOKEN, v));
    r.decision()
        .ifPresent(
            d -> {
              b.put(QUESTIONS_ANSWERED, d.questions());
              b.put(OPTIONS_SCORED, d.optionsScored());
              b.put(SCHEMA_TOKENS, d.schemaTokens());
            });
    r.ujPerDecision().ifPresent(v -> b.put(UJ_PER_DECISION, v));
    r.ujPerOptionScored().ifPresent(v -> b.put(UJ_PER_OPTION_SCORED, v));
    b.put(ENERGY_PROVENANCE, r.energy().provenance().name());
    r.grantBreach().ifPresent(g -> b.put(GRANT_BREACH, g.wire()));
    r.outputCommitment().ifPresent(commitment -> b.put(OUTPUT_COMMITMENT, commitment.hex()));
    b.put(SEQUENCE, r.sequence());
    r.prev().ifPresent(p -> b.put(PREV, p.hex()));
    b.put(NONCE, r.nonce().bytes());
    b.put(STEWARD, r.steward().value());
    return b.build();
  }

  static MeshReceipt decode(CborValue value) throws ReceiptException {
    if (!(value instanceof CborMap map)) {
      throw malformed("the signed core is not a map");
    }
    Map<String, CborValue> f = new HashMap<>();
    for (CborMap.Entry e : map.entries()) {
      if (!(e.key() instanceof CborText(String key))) {
        throw malformed("a signed-core key is not text: " + e.key());
      }
      if (!KNOWN.contains(key)) {
        throw malformed("unknown signed-core key '" + key + "'");
      }
      f.put(key, e.value());
    }
    Fields in = new Fields(f);
    String profile = in.text(MESH_RECEIPT);
    if (!MeshReceipt.PROFILE.equals(profile)) {
      throw malformed("mesh_receipt is '" + profile + "', not 'mesh/1'");
    }
    boolean hasDigest = f.containsKey(WEIGHTS_DIGEST);
    if (hasDigest != f.containsKey(PRECISION)) {
      throw inconsistent("weights_digest and precision appear together or not at all (§3.6)");
    }
    boolean hasAdvertised = f.containsKey(FIDELITY_ADVERTISED);
    if (hasAdvertised != f.containsKey(FIDELITY_DELIVERED)) {
      throw inconsistent(
          "fidelity_advertised and fidelity_delivered appear together or not at all (§3.2.1)");
    }
    boolean decision = f.containsKey(QUESTIONS_ANSWERED);
    if (decision != f.containsKey(OPTIONS_SCORED) || decision != f.containsKey(SCHEMA_TOKENS)) {
      throw inconsistent("questions_answered, options_scored and schema_tokens go together (§3.6)");
    }
    Provenance provenance;
    try {
      provenance = Provenance.fromWire(in.text(ENERGY_PROVENANCE));
    } catch (IllegalArgumentException e) {
      throw malformed(String.valueOf(e.getMessage()));
    }
    long fidelityMet = in.uint(FIDELITY_MET);
    if (fidelityMet > 1) {
      throw malformed("fidelity_met must be 0 or 1, got " + fidelityMet);
    }
    // A value that breaks its own field's format is malformed, as a fidelity above 4 is; only what
    // breaks a rule between fields is inconsistent (SPEC 20 §2). The builder below checks both
    // kinds alike, so the per-field ones are read here first.
    String backend = name(in, BACKEND);
    String recipe = name(in, RECIPE);
    String route = name(in, ROUTE);
    Optional<WeightsBinding> weights = Optional.empty();
    if (hasDigest) {
      ContentId digest = in.contentId(WEIGHTS_DIGEST);
      try {
        weights = Optional.of(new WeightsBinding(digest, in.text(PRECISION)));
      } catch (IllegalArgumentException e) {
        throw malformed(String.valueOf(e.getMessage()));
      }
    }
    if (decision && in.u32(QUESTIONS_ANSWERED) < 1) {
      throw malformed("questions_answered is 0: a decision answers at least one question");
    }
    MeshReceipt receipt;
    try {
      OptionalLong measured =
          f.containsKey(MEASURED_UJ) ? OptionalLong.of(in.uint(MEASURED_UJ)) : OptionalLong.empty();
      receipt =
          MeshReceipt.builder()
              .requestId(in.contentId(REQUEST_ID))
              .grantId(in.optionalContentId(GRANT_ID))
              .backend(backend)
              .recipe(recipe)
              .weights(weights)
              .route(route)
              .counters(
                  new OutcomeCounters(
                      in.u32(TOKENS_IN),
                      in.u32(TOKENS_OUT),
                      in.u32(TOKENS_ACCEPTED),
                      in.u32(CACHE_HIT_TOKENS),
                      in.u32(SPEC_PROPOSED),
                      in.u32(SPEC_ACCEPTED)))
              .fidelityFloor(in.fidelity(FIDELITY_FLOOR))
              .fidelityReport(
                  hasAdvertised
                      ? Optional.of(
                          new FidelityReport(
                              in.fidelity(FIDELITY_ADVERTISED), in.fidelity(FIDELITY_DELIVERED)))
                      : Optional.empty())
              .fidelityMet(fidelityMet == 1)
              .energy(new Energy(measured, in.uint(ESTIMATED_UJ), provenance))
              .decision(
                  decision
                      ? Optional.of(
                          new DecisionShape(
                              in.u32(QUESTIONS_ANSWERED),
                              in.u32(OPTIONS_SCORED),
                              in.u32(SCHEMA_TOKENS)))
                      : Optional.empty())
              .perOptionFigure(f.containsKey(UJ_PER_OPTION_SCORED))
              .grantBreach(
                  f.containsKey(GRANT_BREACH)
                      ? Optional.of(GrantDebit.breachFromWire(in.text(GRANT_BREACH)))
                      : Optional.empty())
              .outputCommitment(in.optionalContentId(OUTPUT_COMMITMENT))
              .chain(in.uint(SEQUENCE), in.optionalContentId(PREV))
              .nonce(in.nonce(NONCE))
              .steward(in.did(STEWARD))
              .build();
    } catch (IllegalArgumentException e) {
      throw inconsistent(String.valueOf(e.getMessage()));
    }
    checkDerived(UJ_PER_ACCEPTED_TOKEN, receipt.ujPerAcceptedToken(), in);
    checkDerived(UJ_PER_DECISION, receipt.ujPerDecision(), in);
    checkDerived(UJ_PER_OPTION_SCORED, receipt.ujPerOptionScored(), in);
    return receipt;
  }

  private static void checkDerived(String key, OptionalLong expected, Fields in)
      throws ReceiptException {
    OptionalLong actual = in.has(key) ? OptionalLong.of(in.uint(key)) : OptionalLong.empty();
    if (!actual.equals(expected)) {
      throw inconsistent(
          expected.isPresent()
              ? key
                  + " is "
                  + figure(actual)
                  + " but the energy and counts give "
                  + expected.getAsLong()
              : key
                  + " is "
                  + figure(actual)
                  + " but the energy and counts give none: it must"
                  + " be absent");
    }
  }

  /** A derived figure as a reader of the refusal writes it: the number, or that there is none. */
  private static String figure(OptionalLong f) {
    return f.isPresent() ? Long.toString(f.getAsLong()) : "absent";
  }

  /** The text of {@code key}, refused as malformed unless it is a name a receipt can carry. */
  private static String name(Fields in, String key) throws ReceiptException {
    String value = in.text(key);
    try {
      MeshReceipt.requireName(key, value);
    } catch (IllegalArgumentException e) {
      throw malformed(String.valueOf(e.getMessage()));
    }
    return value;
  }

  private static ReceiptException malformed(String detail) {
    return new ReceiptException(ReceiptException.Reason.MALFORMED_RECEIPT, detail);
  }

  private static ReceiptException inconsistent(String detail) {
    return new ReceiptException(ReceiptException.Reason.INCONSISTENT_RECEIPT, detail);
  }

  /** Typed access to the decoded fields. */
  private record Fields(Map<String, CborValue> f) {
    boolean has(String key) {
      return f.containsKey(key);
    }

    CborValue get(String key) throws ReceiptException {
      CborValue v = f.get(key);
      if (v == null) {
        throw malformed("required key '" + key + "' is missing");
      }
      return v;
    }

    String text(String key) throws ReceiptException {
      if (get(key) instanceof CborText(String s)) {
        return s;
      }
      throw malformed("'" + key + "' must be a text string");
    }

    long uint(String key) throws ReceiptException {
      if (get(key) instanceof CborInt(long v) && v >= 0) {
        return v;
      }
      throw malformed("'" + key + "' must be an unsigned integer");
    }

    /** A u32 counter: out of range is a malformed value, like a fidelity level above 4. */
    long u32(String key) throws ReceiptException {
      long v = uint(key);
      if (v > 0xffff_ffffL) {
        throw malformed("'" + key + "' must be a u32, got " + v);
      }
      return v;
    }

    Fidelity fidelity(String key) throws ReceiptException {
      long level = uint(key);
      if (level > 4) {
        throw malformed("'" + key + "' must be a fidelity level 0-4, got " + level);
      }
      return Fidelity.of(level);
    }

    ContentId contentId(String key) throws ReceiptException {
      try {
        return ContentId.fromHex(text(key));
      } catch (IllegalArgumentException e) {
        throw malformed("'" + key + "': " + e.getMessage());
      }
    }

    Optional<ContentId> optionalContentId(String key) throws ReceiptException {
      return has(key) ? Optional.of(contentId(key)) : Optional.empty();
    }

    Nonce nonce(String key) throws ReceiptException {
      if (get(key) instanceof CborBytes b && b.length() == Nonce.LENGTH) {
        return Nonce.of(b.bytes());
      }
      throw malformed("'" + key + "' must be a 16-byte byte string");
    }

    DidKey did(String key) throws ReceiptException {
      try {
        return DidKey.parse(text(key));
      } catch (DidKeyException e) {
        throw malformed("'" + key + "': " + e.getMessage());
      }
    }
  }
}
