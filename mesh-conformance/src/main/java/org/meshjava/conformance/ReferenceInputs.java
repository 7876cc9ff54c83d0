package org.meshjava.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.conformance.internal.TinyModel;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;

/**
 * Everything that determines the reference serve: the steward's seed, the backend's configuration,
 * the prompt and its token payload, the request, the nonce and the clock. Written into {@code
 * meta.json} so that anyone can repeat the serve. Immutable.
 *
 * @param stewardSeed the steward's 32-byte Ed25519 seed
 * @param backendName the reference engine's name
 * @param recipe the reference engine's recipe
 * @param fidelity the reference engine's advertised fidelity
 * @param costProfile the reference engine's cost profile
 * @param workPerToken the reference engine's work setting
 * @param promptText the prompt, whose UTF-8 bytes {@code prompt_hash} addresses
 * @param prompt the token payload handed to the engine
 * @param request the request served
 * @param nonce the receipt nonce (16 bytes)
 * @param clock the fixed clock instant
 * @param deliveredFidelity the level the reference engine reports as delivered, if it reports one
 *     (§3.2.1)
 * @param weights the weights binding the reference engine reports, if any (§3.6), with the
 *     vector-relative directory of the model files whose digest it is
 * @param otherBackends further reference engines registered after the serving one, in order, which
 *     the router weighs (§4) and which put their verdicts into the receipt's {@code route}
 */
@SuppressWarnings("ArrayRecordComponent") // fixed inputs, read and never compared
public record ReferenceInputs(
    byte[] stewardSeed,
    String backendName,
    Recipe recipe,
    Fidelity fidelity,
    CostProfile costProfile,
    int workPerToken,
    String promptText,
    TokenSequence prompt,
    ServeRequest request,
    byte[] nonce,
    Instant clock,
    Optional<Fidelity> deliveredFidelity,
    Optional<BoundWeights> weights,
    List<OtherBackend> otherBackends) {

  /**
   * A further reference engine the router weighs besides the serving one.
   *
   * @param name its name, unique among the backends
   * @param fidelity its advertised fidelity
   * @param costProfile its cost profile
   */
  public record OtherBackend(String name, Fidelity fidelity, CostProfile costProfile) {
    /** Validates the record. */
    public OtherBackend {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(fidelity, "fidelity");
      Objects.requireNonNull(costProfile, "costProfile");
    }
  }

  /**
   * A weights binding together with where its model files are published.
   *
   * @param binding the digest and precision the engine reports
   * @param modelDir the folder, relative to the vector's folder, holding the files it digests
   */
  public record BoundWeights(WeightsBinding binding, String modelDir) {
    /** Validates the record. */
    public BoundWeights {
      Objects.requireNonNull(binding, "binding");
      Objects.requireNonNull(modelDir, "modelDir");
    }
  }

  private static final HexFormat HEX = HexFormat.of();

  /** Copies the byte arrays and checks the prompt hash. */
  public ReferenceInputs {
    stewardSeed = stewardSeed.clone();
    nonce = nonce.clone();
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(deliveredFidelity, "deliveredFidelity");
    Objects.requireNonNull(weights, "weights");
    otherBackends = List.copyOf(otherBackends);
    if (!request
        .promptHash()
        .equals(ContentId.ofBytes(promptText.getBytes(StandardCharsets.UTF_8)))) {
      throw new IllegalArgumentException("prompt_hash is not the BLAKE3 of the prompt text");
    }
  }

  /** The steward's 32-byte Ed25519 seed, a copy: the caller may change it without effect here. */
  @Override
  public byte[] stewardSeed() {
    return stewardSeed.clone();
  }

  /** The receipt nonce (16 bytes), a copy: the caller may change it without effect here. */
  @Override
  public byte[] nonce() {
    return nonce.clone();
  }

  /** The inputs of the published v1 reference serve. */
  public static ReferenceInputs v1Generation() {
    String prompt = "What did this answer cost, in joules?";
    return v1(
        CostProfile.perToken(100),
        prompt,
        TokenSequence.of(2061, 750, 428, 3280, 1575, 11, 287, 45668, 30),
        ServeRequest.generation(promptHash(prompt), 9, new ServeBounds(16, Fidelity.F1, 10_000)),
        Optional.empty(),
        Optional.empty());
  }

  /** The inputs of the published v1 decision vector: the same steward, a typed decision. */
  public static ReferenceInputs v1Decision() {
    String prompt = "Is this invoice a duplicate? Which department owns it?";
    return v1(
        CostProfile.perToken(100).withOptionCost(40),
        prompt,
        TokenSequence.of(3792, 428, 45458, 257, 23418, 30, 9022, 5011, 7609, 340, 30, 2, 5),
        ServeRequest.decision(
            promptHash(prompt),
            13,
            new ServeBounds(256, Fidelity.F1, 10_000),
            new org.meshjava.core.DecisionShape(2, 7, 11)),
        Optional.empty(),
        Optional.empty());
  }

  /**
   * The inputs of the published v1 commitment vector: the same steward, a generation on a backend
   * rated F2 that reports delivering F1 against an F2 floor (so {@code fidelity_met} is 0, where
   * the advertisement alone would have said 1), binding the weights of the tiny sharded model
   * (published under {@code model/}) at fp32.
   */
  public static ReferenceInputs v1Commitment() {
    String prompt = "Which answer did this receipt seal?";
    return v1(
        CostProfile.perToken(100),
        prompt,
        TokenSequence.of(13828, 3280, 750, 428, 14507, 13497, 30),
        ServeRequest.generation(promptHash(prompt), 7, new ServeBounds(5, Fidelity.F2, 10_000)),
        Optional.of(Fidelity.F1),
        Optional.of(new BoundWeights(TinyModel.digest().bind("fp32"), TinyModel.DIR)));
  }

  /**
   * A published v1 vector: the reference steward (seed {@code 00 01 … 1f}) and its reference engine
   * rated F2 at work 16, with the nonce {@code a0 a1 … af} and the clock all the vectors share,
   * serving {@code request} for {@code promptText}.
   */
  private static ReferenceInputs v1(
      CostProfile costProfile,
      String promptText,
      TokenSequence prompt,
      ServeRequest request,
      Optional<Fidelity> deliveredFidelity,
      Optional<BoundWeights> weights) {
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) i;
    }
    byte[] nonce = new byte[16];
    for (int i = 0; i < 16; i++) {
      nonce[i] = (byte) (0xa0 + i);
    }
    return new ReferenceInputs(
        seed,
        "reference",
        Recipe.of("reference"),
        Fidelity.F2,
        costProfile,
        16,
        promptText,
        prompt,
        request,
        nonce,
        Instant.parse("2026-11-29T00:00:00Z"),
        deliveredFidelity,
        weights,
        List.of());
  }

  private static ContentId promptHash(String promptText) {
    return ContentId.ofBytes(promptText.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The inputs of the published v1 route vector: the generation of {@link #v1Generation()} on a
   * steward with five backends, so that the receipt's {@code route} carries every clause of a
   * multi-backend justification (SPEC 20 §6): a later backend tied on the estimate and a dearer one
   * (both admissible, not chosen), one below the floor and one over the ceiling.
   */
  public static ReferenceInputs v1Route() {
    ReferenceInputs g = v1Generation();
    return new ReferenceInputs(
        g.stewardSeed,
        g.backendName,
        g.recipe,
        g.fidelity,
        g.costProfile,
        g.workPerToken,
        g.promptText,
        g.prompt,
        g.request,
        g.nonce,
        g.clock,
        g.deliveredFidelity,
        g.weights,
        List.of(
            new OtherBackend("tied", Fidelity.F2, CostProfile.perToken(100)),
            new OtherBackend("dearer", Fidelity.F3, CostProfile.perToken(300)),
            new OtherBackend("weak", Fidelity.F0, CostProfile.perToken(10)),
            new OtherBackend("frontier", Fidelity.F4, CostProfile.perToken(1_000))));
  }

  /** Writes these inputs as the {@code inputs} object of {@code meta.json}. */
  public ObjectNode toJson() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode o = f.objectNode();
    o.put("steward_seed_hex", HEX.formatHex(stewardSeed));
    ObjectNode backend = o.putObject("backend");
    backend.put("engine", "ReferenceEngine");
    backend.put("name", backendName);
    backend.put("recipe", recipe.name());
    backend.put("fidelity", fidelity.level());
    backend.put("uj_per_token", costProfile.ujPerToken());
    backend.put("uj_per_option_scored", costProfile.ujPerOptionScored());
    backend.put("work_per_token", workPerToken);
    // Written only when present, so the vectors that predate them keep their bytes.
    deliveredFidelity.ifPresent(d -> backend.put("delivered_fidelity", d.level()));
    weights.ifPresent(
        w -> {
          ObjectNode wj = backend.putObject("weights");
          wj.put("weights_digest", w.binding().digest().hex());
          wj.put("precision", w.binding().precision());
          wj.put("model_dir", w.modelDir());
        });
    if (!otherBackends.isEmpty()) {
      ArrayNode others = o.putArray("other_backends");
      for (OtherBackend b : otherBackends) {
        ObjectNode bj = others.addObject();
        bj.put("engine", "ReferenceEngine");
        bj.put("name", b.name());
        bj.put("fidelity", b.fidelity().level());
        bj.put("uj_per_token", b.costProfile().ujPerToken());
        bj.put("uj_per_option_scored", b.costProfile().ujPerOptionScored());
      }
    }
    o.put("meter", "Estimator");
    o.put("prompt_text", promptText);
    ArrayNode ids = o.putArray("prompt_payload");
    for (int id : prompt.toArray()) {
      ids.add(Integer.toUnsignedLong(id));
    }
    o.set("request", requestJson(request));
    o.put("nonce_hex", HEX.formatHex(nonce));
    o.put("clock", clock.toString());
    return o;
  }

  /**
   * The protocol's request object for {@code r}: the shape of {@code meta.json}'s {@code request}
   * and of every pack case's.
   *
   * @param r the request
   * @return a new JSON object
   */
  public static ObjectNode requestJson(ServeRequest r) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("prompt_hash", r.promptHash().hex());
    o.put("prompt_tokens", r.promptTokens());
    o.put("max_tokens", r.maxTokens());
    o.put("fidelity_floor", r.fidelityFloor().level());
    o.put("joule_ceiling_uj", r.jouleCeilingUj());
    r.decision()
        .ifPresent(
            d -> {
              ObjectNode dec = o.putObject("decision");
              dec.put("questions", d.questions());
              dec.put("options_scored", d.optionsScored());
              dec.put("schema_tokens", d.schemaTokens());
            });
    return o;
  }

  /**
   * Reads the {@code inputs} object of {@code meta.json}.
   *
   * @throws IllegalArgumentException if a field is missing or malformed
   */
  public static ReferenceInputs fromJson(JsonNode o) {
    JsonNode backend = required(o, "backend");
    JsonNode req = required(o, "request");
    JsonNode payload = required(o, "prompt_payload");
    int[] ids = new int[payload.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = (int) payload.get(i).asLong();
    }
    ServeRequest request =
        new ServeRequest(
            ContentId.fromHex(required(req, "prompt_hash").asText()),
            required(req, "prompt_tokens").asLong(),
            required(req, "max_tokens").asLong(),
            Fidelity.of(required(req, "fidelity_floor").asLong()),
            required(req, "joule_ceiling_uj").asLong(),
            req.has("decision")
                ? java.util.Optional.of(
                    new org.meshjava.core.DecisionShape(
                        required(req.get("decision"), "questions").asLong(),
                        required(req.get("decision"), "options_scored").asLong(),
                        required(req.get("decision"), "schema_tokens").asLong()))
                : java.util.Optional.empty());
    return new ReferenceInputs(
        HEX.parseHex(required(o, "steward_seed_hex").asText()),
        required(backend, "name").asText(),
        Recipe.of(required(backend, "recipe").asText()),
        Fidelity.of(required(backend, "fidelity").asLong()),
        new CostProfile(
            required(backend, "uj_per_token").asLong(),
            required(backend, "uj_per_option_scored").asLong()),
        required(backend, "work_per_token").asInt(),
        required(o, "prompt_text").asText(),
        TokenSequence.of(ids),
        request,
        HEX.parseHex(required(o, "nonce_hex").asText()),
        Instant.parse(required(o, "clock").asText()),
        backend.has("delivered_fidelity")
            ? Optional.of(Fidelity.of(backend.get("delivered_fidelity").asLong()))
            : Optional.empty(),
        backend.has("weights")
            ? Optional.of(
                new BoundWeights(
                    new WeightsBinding(
                        ContentId.fromHex(
                            required(backend.get("weights"), "weights_digest").asText()),
                        required(backend.get("weights"), "precision").asText()),
                    required(backend.get("weights"), "model_dir").asText()))
            : Optional.empty(),
        otherBackends(o.path("other_backends")));
  }

  private static List<OtherBackend> otherBackends(JsonNode array) {
    List<OtherBackend> out = new ArrayList<>();
    for (JsonNode b : array) {
      out.add(
          new OtherBackend(
              required(b, "name").asText(),
              Fidelity.of(required(b, "fidelity").asLong()),
              new CostProfile(
                  required(b, "uj_per_token").asLong(),
                  required(b, "uj_per_option_scored").asLong())));
    }
    return out;
  }

  private static JsonNode required(JsonNode o, String field) {
    JsonNode v = o == null ? null : o.get(field);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("meta.json lacks '" + field + "'");
    }
    return v;
  }
}
