package org.meshjava.receipt;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.DenialLabel;
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
import org.meshjava.receipt.internal.SignedCoreSink;

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

  /** The receipt's signed core as a CBOR map: {@link #write}'s fields, collected and sorted. */
  static CborMap encode(MeshReceipt r) {
    MapSink map = new MapSink();
    write(r, map);
    return map.entries.build();
  }

  /** Collects the written fields into a map builder, which sorts them. */
  private static final class MapSink implements SignedCoreSink<RuntimeException> {
    final CborMap.Builder entries = CborMap.builder();

    @Override
    public void text(String key, String value) {
      entries.put(key, value);
    }

    @Override
    public void uint(String key, long value) {
      entries.put(key, value);
    }

    @Override
    public void bytes(String key, byte[] value) {
      entries.put(key, value);
    }
  }

  /**
   * Writes the receipt's signed core to {@code sink}, field by field in canonical key order (RFC
   * 8949 §4.2.1: every key here is text shorter than 24 bytes, so shorter keys first, then
   * bytewise), absent options left out. This is the one list of the core's fields: {@link #encode}
   * collects it into a map, {@link SignedCoreBytes} writes it as the bytes the seal signs, and the
   * receipt's JSON view writes it as JSON, all in this order. {@code SignedCoreBytesTest} holds the
   * order to the map's own sort.
   */
  static <X extends Exception> void write(MeshReceipt r, SignedCoreSink<X> sink) throws X {
    OutcomeCounters c = r.counters();
    Energy energy = r.energy();
    Optional<ContentId> prev = r.prev();
    if (prev.isPresent()) {
      sink.text(PREV, prev.get().hex());
    }
    sink.bytes(NONCE, r.nonce().bytes());
    sink.text(ROUTE, r.route());
    sink.text(RECIPE, r.recipe());
    sink.text(BACKEND, r.backend());
    sink.text(STEWARD, r.steward().value());
    Optional<ContentId> grant = r.grantId();
    if (grant.isPresent()) {
      sink.text(GRANT_ID, grant.get().hex());
    }
    sink.uint(SEQUENCE, r.sequence());
    Optional<WeightsBinding> weights = r.weights();
    if (weights.isPresent()) {
      sink.text(PRECISION, weights.get().precision());
    }
    sink.uint(TOKENS_IN, c.tokensIn());
    sink.text(REQUEST_ID, r.requestId().hex());
    sink.uint(TOKENS_OUT, c.tokensOut());
    OptionalLong measured = energy.measuredUj();
    if (measured.isPresent()) {
      sink.uint(MEASURED_UJ, measured.getAsLong());
    }
    sink.uint(ESTIMATED_UJ, energy.estimatedUj());
    sink.uint(FIDELITY_MET, r.fidelityMet() ? 1 : 0);
    Optional<DenialLabel> breach = r.grantBreach();
    if (breach.isPresent()) {
      sink.text(GRANT_BREACH, breach.get().wire());
    }
    sink.text(MESH_RECEIPT, MeshReceipt.PROFILE);
    Optional<DecisionShape> decision = r.decision();
    if (decision.isPresent()) {
      sink.uint(SCHEMA_TOKENS, decision.get().schemaTokens());
    }
    sink.uint(SPEC_ACCEPTED, c.specAccepted());
    sink.uint(SPEC_PROPOSED, c.specProposed());
    sink.uint(FIDELITY_FLOOR, r.fidelityFloor().level());
    if (decision.isPresent()) {
      sink.uint(OPTIONS_SCORED, decision.get().optionsScored());
    }
    if (weights.isPresent()) {
      sink.text(WEIGHTS_DIGEST, weights.get().digest().hex());
    }
    sink.uint(TOKENS_ACCEPTED, c.tokensAccepted());
    uintIfPresent(sink, UJ_PER_DECISION, r.ujPerDecision());
    sink.uint(CACHE_HIT_TOKENS, c.cacheHitTokens());
    sink.text(ENERGY_PROVENANCE, energy.provenance().name());
    Optional<ContentId> commitment = r.outputCommitment();
    if (commitment.isPresent()) {
      sink.text(OUTPUT_COMMITMENT, commitment.get().hex());
    }
    Optional<FidelityReport> fidelity = r.fidelityReport();
    if (fidelity.isPresent()) {
      sink.uint(FIDELITY_DELIVERED, fidelity.get().delivered().level());
    }
    if (decision.isPresent()) {
      sink.uint(QUESTIONS_ANSWERED, decision.get().questions());
    }
    if (fidelity.isPresent()) {
      sink.uint(FIDELITY_ADVERTISED, fidelity.get().advertised().level());
    }
    uintIfPresent(sink, UJ_PER_OPTION_SCORED, r.ujPerOptionScored());
    uintIfPresent(sink, UJ_PER_ACCEPTED_TOKEN, r.ujPerAcceptedToken());
  }

  private static <X extends Exception> void uintIfPresent(
      SignedCoreSink<X> sink, String key, OptionalLong value) throws X {
    if (value.isPresent()) {
      sink.uint(key, value.getAsLong());
    }
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
