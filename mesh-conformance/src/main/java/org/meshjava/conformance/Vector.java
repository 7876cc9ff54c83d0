package org.meshjava.conformance;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HexFormat;
import java.util.Map;
import org.meshjava.conformance.internal.TinyModel;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.weights.WeightsFile;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;

/**
 * One published vector: a name (its folder under {@code conformance/v1/}), what it shows, and its
 * inputs. {@link #generate()} serves it and returns the three files' contents.
 *
 * @param name the folder name
 * @param description one sentence for {@code meta.json}
 * @param inputs what determines the serve
 * @param published further files published in the vector's folder, by relative path
 */
public record Vector(
    String name, String description, ReferenceInputs inputs, Map<String, byte[]> published) {

  /** Copies the map (the arrays are the caller's to leave alone). */
  public Vector {
    published = Map.copyOf(published);
  }

  /** A vector with no further files. */
  public Vector(String name, String description, ReferenceInputs inputs) {
    this(name, description, inputs, Map.of());
  }

  /** The vectors of {@code conformance/v1}, in order. */
  public static java.util.List<Vector> v1() {
    return java.util.List.of(
        new Vector(
            "reference",
            "A generation served by the reference engine under the estimator meter at genesis.",
            ReferenceInputs.v1Generation()),
        new Vector(
            "decision",
            "A typed decision (2 questions, 7 options) on the same steward: no token wedge, no"
                + " output commitment, uj_per_decision and uj_per_option_scored instead.",
            ReferenceInputs.v1Decision()),
        new Vector(
            "commitment",
            "A generation on a backend that binds its weights (the tiny sharded model under"
                + " model/, at fp32) and reports delivering F1 below its F2 rating against an F2"
                + " floor, so fidelity_met is 0; with the opening, payload digest and output that"
                + " disclose it.",
            ReferenceInputs.v1Commitment(),
            prefixed(TinyModel.DIR, TinyModel.files())),
        new Vector(
            "route",
            "The reference generation on a steward with five backends: its route names the"
                + " cheapest admissible one and counts a tied and a dearer admissible backend, one"
                + " below the floor and one over the ceiling.",
            ReferenceInputs.v1Route()));
  }

  private static Map<String, byte[]> prefixed(String dir, Map<String, byte[]> files) {
    Map<String, byte[]> out = new java.util.TreeMap<>();
    files.forEach((k, v) -> out.put(dir + "/" + k, v));
    return out;
  }

  /**
   * The generated files of one vector.
   *
   * @param signedCoreHex {@code signed_core.hex}'s line
   * @param envelopeHex {@code envelope.hex}'s line
   * @param meta {@code meta.json}
   * @param extra further files by relative path
   */
  public record Files(
      String signedCoreHex, String envelopeHex, ObjectNode meta, Map<String, byte[]> extra) {}

  /** Serves the vector on this implementation and returns the files it publishes. */
  public Files generate() throws ServeException {
    HexFormat hex = HexFormat.of();
    ServeResult result = ReferenceServe.run(inputs);
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode meta = f.objectNode();
    meta.put("profile", "mesh/1");
    meta.put("vector", name);
    meta.put("description", description);
    meta.set("inputs", inputs.toJson());
    ObjectNode expected = meta.putObject("expected");
    SigningKey key = SigningKey.fromSeed(inputs.stewardSeed());
    expected.put("steward_did_key", DidKey.of(key.verificationKey()).value());
    expected.put("request_canonical_hex", hex.formatHex(inputs.request().encode()));
    expected.put("request_id", inputs.request().id().hex());
    ArrayNode out = expected.putArray("output_tokens");
    for (int t : result.tokens().toArray()) {
      out.add(Integer.toUnsignedLong(t));
    }
    expected.put("payload_digest", OutputCommitment.payloadDigest(inputs.prompt()).hex());
    if (!inputs.request().isDecision()) {
      expected.put(
          "opening_hex", ReferenceServe.steward(inputs).opening(inputs.request().id()).hex());
    }
    inputs
        .weights()
        .ifPresent(
            w -> {
              ArrayNode files = expected.putArray("weights_files");
              for (WeightsFile file : TinyModel.digest().files()) {
                ObjectNode entry = files.addObject();
                entry.put("path", file.path());
                entry.put("blake3", file.digest().hex());
              }
              expected.put("weights_canonical_hex", hex.formatHex(TinyModel.digest().encode()));
            });
    expected.set("receipt", ReceiptJson.of(result.receipt()));
    byte[] core = result.receipt().encodeSignedCore();
    expected.put("signed_core_length", core.length);
    expected.put("envelope_length", result.envelope().length());
    expected.put("envelope_id", result.envelope().id().hex());
    return new Files(hex.formatHex(core), result.envelope().hex(), meta, published);
  }
}
