package org.meshjava.core.internal;

import java.util.Optional;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

/**
 * A request's canonical form (SPEC.md section 10.3) as a CBOR value, and a request read back from
 * one. The request itself offers only the bytes ({@link ServeRequest#encode()}); the journal, which
 * embeds requests in its records and snapshots, and the command line, which reads one from JSON,
 * work in the CBOR value model and come here.
 */
public final class RequestCbor {
  private static final Set<String> KNOWN =
      Set.of(
          "prompt_hash",
          "prompt_tokens",
          "max_tokens",
          "fidelity_floor",
          "joule_ceiling_uj",
          "decision",
          "model");

  private RequestCbor() {}

  /** Returns {@code request}'s canonical form. */
  public static CborMap encode(ServeRequest request) {
    CborMap.Builder b =
        CborMap.builder()
            .put("prompt_hash", new CborText(request.promptHash().hex()))
            .put("prompt_tokens", request.promptTokens())
            .put("max_tokens", request.maxTokens())
            .put("fidelity_floor", request.fidelityFloor().level())
            .put("joule_ceiling_uj", request.jouleCeilingUj());
    request.decision().ifPresent(d -> b.put("decision", decision(d)));
    request.model().ifPresent(m -> b.put("model", m));
    return b.build();
  }

  /** Returns {@code {"questions", "options_scored", "schema_tokens"}}: a decision's shape. */
  public static CborMap decision(DecisionShape shape) {
    return CborMap.builder()
        .put("questions", shape.questions())
        .put("options_scored", shape.optionsScored())
        .put("schema_tokens", shape.schemaTokens())
        .build();
  }

  /**
   * Reads a request back from its canonical form, refusing unknown keys, missing keys and mistyped
   * values.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static ServeRequest decode(CborValue value) {
    if (!(value instanceof CborMap map)) {
      throw new IllegalArgumentException("a request is a CBOR map");
    }
    for (CborMap.Entry e : map.entries()) {
      if (!(e.key() instanceof CborText(String k)) || !KNOWN.contains(k)) {
        throw new IllegalArgumentException("unknown request key " + e.key());
      }
    }
    Optional<DecisionShape> decision = Optional.empty();
    if (map.get("decision").isPresent()) {
      if (!(map.get("decision").get() instanceof CborMap d) || d.size() != 3) {
        throw new IllegalArgumentException("decision is a map of exactly three keys");
      }
      decision =
          Optional.of(
              new DecisionShape(
                  uint(d, "questions"), uint(d, "options_scored"), uint(d, "schema_tokens")));
    }
    if (!(map.get("prompt_hash").orElse(null) instanceof CborText(String h))) {
      throw new IllegalArgumentException("prompt_hash is a hex text string");
    }
    return new ServeRequest(
        ContentId.fromHex(h),
        uint(map, "prompt_tokens"),
        uint(map, "max_tokens"),
        Fidelity.of(uint(map, "fidelity_floor")),
        uint(map, "joule_ceiling_uj"),
        decision,
        model(map));
  }

  private static Optional<String> model(CborMap map) {
    if (map.get("model").isEmpty()) {
      return Optional.empty();
    }
    if (map.get("model").get() instanceof CborText(String m)) {
      return Optional.of(m);
    }
    throw new IllegalArgumentException("model is a text string");
  }

  private static long uint(CborMap map, String key) {
    if (map.get(key).orElse(null) instanceof CborInt(long v) && v >= 0) {
      return v;
    }
    throw new IllegalArgumentException(key + " is a required unsigned integer");
  }
}
