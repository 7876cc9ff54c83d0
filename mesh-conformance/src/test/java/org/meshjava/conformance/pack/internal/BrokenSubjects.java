package org.meshjava.conformance.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.internal.CoseSign1;

/**
 * Subjects that are wrong on purpose, each in one known way, to show that the pack catches exactly
 * that: the cases flagged with the rule it breaks fail, and no others.
 */
final class BrokenSubjects {
  private BrokenSubjects() {}

  /** Encodes a receipt's keys in string order instead of the order of their encodings. */
  static final class StringKeyOrder extends MeshJavaPackSubject {
    public static void main(String[] args) throws java.io.IOException {
      new StringKeyOrder().serve(System.in, System.out);
    }

    @Override
    protected Optional<ObjectNode> perform(String op, JsonNode in) throws Exception {
      Optional<ObjectNode> out = super.perform(op, in);
      if (!op.equals("encode_core") || out.isEmpty()) {
        return out;
      }
      HexFormat hex = HexFormat.of();
      CborMap core =
          (CborMap) CanonicalCbor.decode(hex.parseHex(out.get().get("signed_core").asText()));
      List<CborMap.Entry> entries = new ArrayList<>(core.entries());
      entries.sort((a, b) -> ((CborText) a.key()).value().compareTo(((CborText) b.key()).value()));
      byte[][] pairs = new byte[entries.size()][];
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      bytes.writeBytes(Fixtures.head(5, entries.size()));
      for (CborMap.Entry e : entries) {
        bytes.writeBytes(e.key().encode());
        bytes.writeBytes(e.value().encode());
      }
      out.get().put("signed_core", hex.formatHex(bytes.toByteArray()));
      return out;
    }
  }

  /**
   * Skips the §3.3 coupling of provenance and measurement: a receipt refused only for it is taken
   * as if its provenance were {@code ModelBased}, which allows either.
   */
  static final class SkipsProvenanceCoupling extends MeshJavaPackSubject {
    public static void main(String[] args) throws java.io.IOException {
      new SkipsProvenanceCoupling().serve(System.in, System.out);
    }

    @Override
    ObjectNode verifyEnvelope(JsonNode in) throws Refusal {
      try {
        return super.verifyEnvelope(in);
      } catch (Refusal r) {
        if (!r.reason().equals("INCONSISTENT_RECEIPT")) {
          throw r;
        }
        try {
          byte[] payload =
              CoseSign1.decode(HexFormat.of().parseHex(in.get("envelope").asText())).payload();
          ObjectNode view = ReceiptJson.ofSignedCore(payload);
          String provenance = view.path("energy_provenance").asText();
          view.put("energy_provenance", "ModelBased");
          ReceiptJson.parse(view);
          view.put("energy_provenance", provenance);
          ObjectNode out = Fixtures.obj();
          out.set("receipt", view);
          return out;
        } catch (Exception stillBad) {
          throw r;
        }
      }
    }
  }
}
