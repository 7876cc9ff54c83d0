package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HexFormat;
import org.meshjava.core.bytes.LowercaseHex;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.SignedCoreSink;
import org.meshjava.receipt.internal.SignedCores;

/**
 * A readable JSON view of a receipt: its signed core with the same keys in the same (canonical)
 * order, integers as JSON numbers and byte strings as lowercase hex. For people and logs; the
 * envelope, not this view, is what verifies. Stateless and thread-safe.
 *
 * <p>It lives with the HTTP binding, not in mesh-receipt, so that the receipt module's API carries
 * no JSON library's types.
 */
public final class ReceiptJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The one signed-core key whose JSON text is hex for a byte string (§6.1). */
  private static final String NONCE = "nonce";

  private ReceiptJson() {}

  /** Returns the receipt's signed core as a JSON object. */
  public static ObjectNode of(MeshReceipt receipt) {
    return (ObjectNode) toJson(SignedCores.encode(receipt));
  }

  /**
   * Returns a sealed receipt's signed core as a JSON object: the same JSON as {@link
   * #of(MeshReceipt)} of its receipt, from the core the seal already built (or verification
   * decoded) rather than a second one.
   */
  public static ObjectNode of(SealedReceipt sealed) {
    return (ObjectNode) toJson(SignedCores.of(sealed));
  }

  /**
   * Writes a sealed receipt's signed core as {@link #of(SealedReceipt)} renders it, without
   * building the tree: the receipt in every served reply's {@code usage.energy}.
   */
  static void write(SealedReceipt sealed, JsonGenerator g) throws IOException {
    g.writeStartObject();
    SignedCores.write(
        sealed,
        new SignedCoreSink<IOException>() {
          @Override
          public void text(String key, String value) throws IOException {
            g.writeStringField(key, value);
          }

          @Override
          public void uint(String key, long value) throws IOException {
            g.writeNumberField(key, value);
          }

          @Override
          public void bytes(String key, byte[] value) throws IOException {
            g.writeStringField(key, HexFormat.of().formatHex(value));
          }
        });
    g.writeEndObject();
  }

  /**
   * Reads the JSON view back into a receipt: numbers become unsigned integers, strings become text,
   * except {@code nonce}, whose hex becomes a byte string; then the signed core is decoded with
   * every rule {@link org.meshjava.receipt.Jcr1#open} applies to a payload.
   *
   * @throws ReceiptException if the JSON is not the view of a valid receipt
   */
  public static MeshReceipt parse(JsonNode json) throws ReceiptException {
    if (json == null || !json.isObject()) {
      throw new ReceiptException(ReceiptException.Reason.MALFORMED_RECEIPT, "not a JSON object");
    }
    CborMap.Builder b = CborMap.builder();
    var fields = json.properties().iterator();
    while (fields.hasNext()) {
      var f = fields.next();
      JsonNode v = f.getValue();
      String key = f.getKey();
      if (v.isIntegralNumber() && v.canConvertToLong() && v.asLong() >= 0) {
        b.put(key, v.asLong());
      } else if (v.isTextual() && key.equals(NONCE)) {
        try {
          b.put(key, LowercaseHex.decode(v.asText()));
        } catch (IllegalArgumentException e) {
          throw new ReceiptException(
              ReceiptException.Reason.MALFORMED_RECEIPT, "nonce is " + e.getMessage(), e);
        }
      } else if (v.isTextual()) {
        b.put(key, v.asText());
      } else {
        throw new ReceiptException(
            ReceiptException.Reason.MALFORMED_RECEIPT,
            "'" + key + "' must be an unsigned integer or a string");
      }
    }
    CborMap core;
    try {
      core = b.build();
    } catch (IllegalArgumentException e) {
      throw new ReceiptException(
          ReceiptException.Reason.MALFORMED_RECEIPT, String.valueOf(e.getMessage()), e);
    }
    return SignedCores.decode(core);
  }

  /**
   * Returns a signed core's JSON view as the bytes say, whether or not they are a valid receipt's
   * core: to show what an envelope's payload holds when opening it refused it ({@link
   * MeshReceipt#encodeSignedCore()} writes such bytes for a valid one).
   *
   * @throws ReceiptException {@code MALFORMED_RECEIPT} if the bytes are not one canonical CBOR map
   */
  public static ObjectNode ofSignedCore(byte[] core) throws ReceiptException {
    CborValue value;
    try {
      value = CanonicalCbor.decode(core);
    } catch (CborDecodeException e) {
      throw new ReceiptException(
          ReceiptException.Reason.MALFORMED_RECEIPT, "the signed core is " + e.getMessage(), e);
    }
    if (!(value instanceof CborMap map)) {
      throw new ReceiptException(
          ReceiptException.Reason.MALFORMED_RECEIPT, "the signed core is not a map");
    }
    return (ObjectNode) toJson(map);
  }

  private static String key(CborMap.Entry e) {
    return e.key() instanceof CborText(String s) ? s : String.valueOf(e.key());
  }

  /** Any CBOR value as JSON (text-keyed maps become objects; other keys are stringified). */
  private static JsonNode toJson(CborValue value) {
    return switch (value) {
      case CborInt i -> NODES.numberNode(i.value());
      case CborText t -> NODES.textNode(t.value());
      case CborBytes b -> NODES.textNode(HexFormat.of().formatHex(b.bytes()));
      case CborArray a -> {
        ArrayNode arr = NODES.arrayNode();
        a.items().forEach(item -> arr.add(toJson(item)));
        yield arr;
      }
      case CborMap m -> {
        ObjectNode obj = NODES.objectNode();
        for (CborMap.Entry e : m.entries()) {
          obj.set(key(e), toJson(e.value()));
        }
        yield obj;
      }
      case CborTag t -> {
        ObjectNode obj = NODES.objectNode();
        obj.put("tag", t.tag());
        obj.set("content", toJson(t.content()));
        yield obj;
      }
    };
  }
}
