package org.meshjava.conformance.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.ReferenceServe;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.CoseSign1;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;

/**
 * What the pack's generators share: the test keys, the three published serves, readable receipt
 * views and their sealing, hand-written CBOR for inputs no canonical encoder would produce, and the
 * case catalogues (JSON resources beside these classes) for families of cases that differ only in
 * their values. Everything is deterministic, so the generated pack is the same bytes on every
 * build.
 */
final class Fixtures {
  static final HexFormat HEX = HexFormat.of();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The published vectors' steward seed, {@code 00 01 … 1f}. Test key: never use it elsewhere. */
  static final byte[] SEED = seed(0);

  /** A second steward's seed, {@code 20 21 … 3f}, for cases about the wrong key. */
  static final byte[] OTHER_SEED = seed(0x20);

  static final SigningKey KEY = SigningKey.fromSeed(SEED);
  static final SigningKey OTHER_KEY = SigningKey.fromSeed(OTHER_SEED);
  static final DidKey STEWARD = DidKey.of(KEY.verificationKey());
  static final DidKey OTHER_STEWARD = DidKey.of(OTHER_KEY.verificationKey());

  private Fixtures() {}

  private static byte[] seed(int first) {
    byte[] s = new byte[32];
    for (int i = 0; i < 32; i++) {
      s[i] = (byte) (first + i);
    }
    return s;
  }

  /** A seed of 32 equal bytes, as SPEC 30's worked example uses. */
  static byte[] repeated(int b) {
    byte[] s = new byte[32];
    java.util.Arrays.fill(s, (byte) b);
    return s;
  }

  /** The published serve of {@code inputs}, on this implementation. */
  static ServeResult serve(ReferenceInputs inputs) {
    try {
      return ReferenceServe.run(inputs);
    } catch (ServeException e) {
      throw new IllegalStateException("the reference serve failed: " + e.getMessage(), e);
    }
  }

  /** The readable view of a sealed receipt (ReceiptJson). */
  static ObjectNode view(SealedReceipt s) {
    return ReceiptJson.of(s.receipt());
  }

  /**
   * Recomputes a view's derived figures (SPEC 20 §2): {@code E} is {@code measured_uj} when
   * present, else {@code estimated_uj}; floor division throughout.
   */
  static ObjectNode derive(ObjectNode v) {
    long e = v.has("measured_uj") ? v.get("measured_uj").asLong() : v.get("estimated_uj").asLong();
    v.remove(List.of("uj_per_accepted_token", "uj_per_decision", "uj_per_option_scored"));
    if (v.has("questions_answered")) {
      v.put("uj_per_decision", e / v.get("questions_answered").asLong());
      v.put("uj_per_option_scored", e / v.get("options_scored").asLong());
    } else if (v.get("tokens_accepted").asLong() > 0) {
      v.put("uj_per_accepted_token", e / v.get("tokens_accepted").asLong());
    }
    return v;
  }

  /**
   * Seals a view that must be a valid receipt, returning the sealed receipt.
   *
   * @throws IllegalStateException if the view is not a valid receipt (a generator bug)
   */
  static SealedReceipt sealValid(ObjectNode view) {
    try {
      return Jcr1.seal(ReceiptJson.parse(view), KEY);
    } catch (ReceiptException e) {
      throw new IllegalStateException(
          "a valid case's receipt does not parse: " + e.getMessage(), e);
    }
  }

  /**
   * The canonical CBOR of a view without any receipt check: numbers become integers (negative ones
   * too), strings text, {@code nonce} a byte string. For receipts that are meant to be bad.
   */
  static CborMap rawCore(ObjectNode view) {
    CborMap.Builder b = CborMap.builder();
    view.properties().forEach(f -> b.put(f.getKey(), value(f.getKey(), f.getValue())));
    return b.build();
  }

  private static CborValue value(String key, JsonNode v) {
    if (v.isIntegralNumber()) {
      return CborInt.of(v.asLong());
    }
    if (key.equals("nonce")) {
      return CborBytes.of(HEX.parseHex(v.asText()));
    }
    return CborText.of(v.asText());
  }

  /** A JCR-1 envelope over any payload bytes, signed by the test steward under its own kid. */
  static byte[] envelope(byte[] payload) {
    return envelope(Jcr1.protectedHeader(STEWARD), CborMap.of(List.of()), payload, KEY);
  }

  /** A COSE_Sign1 over any parts, signed by {@code key}. */
  static byte[] envelope(
      byte[] protectedHeader, CborMap unprotected, byte[] payload, SigningKey key) {
    return CoseSign1.sign(protectedHeader, unprotected, payload, key).encode();
  }

  /**
   * A case catalogue: the JSON resource {@code name} beside these classes, listing a family of
   * cases that differ only in their values.
   */
  static JsonNode catalogue(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("no case catalogue " + name);
      }
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String hex(byte[] b) {
    return HEX.formatHex(b);
  }

  static ObjectNode obj() {
    return NODES.objectNode();
  }

  static ObjectNode obj(String k, String v) {
    ObjectNode o = obj();
    o.put(k, v);
    return o;
  }

  static ArrayNode tokensJson(TokenSequence t) {
    return MeshJavaPackSubject.tokensJson(t);
  }

  // --- hand-written CBOR ------------------------------------------------------------------------

  /** A CBOR head in its shortest form. */
  static byte[] head(int major, long arg) {
    if (arg < 24) {
      return new byte[] {(byte) (major << 5 | arg)};
    }
    int width = arg <= 0xff ? 1 : arg <= 0xffff ? 2 : arg <= 0xffffffffL ? 4 : 8;
    return head(major, arg, width);
  }

  /** A CBOR head with its argument in exactly {@code width} (1, 2, 4 or 8) bytes. */
  static byte[] head(int major, long arg, int width) {
    int ai =
        switch (width) {
          case 1 -> 24;
          case 2 -> 25;
          case 4 -> 26;
          case 8 -> 27;
          default -> throw new IllegalArgumentException("width " + width);
        };
    byte[] out = new byte[1 + width];
    out[0] = (byte) (major << 5 | ai);
    for (int i = 0; i < width; i++) {
      out[width - i] = (byte) (arg >>> (8 * i));
    }
    return out;
  }

  static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] text(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return cat(head(3, b.length), b);
  }

  /**
   * A map's entries as encoded pairs, in canonical order, so that a case can reorder, repeat or
   * re-encode one and assemble the map itself.
   */
  static List<byte[][]> entries(CborMap map) {
    return map.entries().stream()
        .map(e -> new byte[][] {e.key().encode(), e.value().encode()})
        .toList();
  }

  /** A map of these encoded pairs, in the order given, with a shortest head. */
  static byte[] map(List<byte[][]> pairs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head(5, pairs.size()));
    for (byte[][] p : pairs) {
      out.writeBytes(p[0]);
      out.writeBytes(p[1]);
    }
    return out.toByteArray();
  }

  /** Replaces the value of the entry whose key is {@code key} with {@code value}'s bytes. */
  static List<byte[][]> replace(List<byte[][]> pairs, String key, byte[] value) {
    byte[] k = text(key);
    boolean found = false;
    List<byte[][]> out = new java.util.ArrayList<>();
    for (byte[][] p : pairs) {
      if (java.util.Arrays.equals(p[0], k)) {
        out.add(new byte[][] {p[0], value});
        found = true;
      } else {
        out.add(p);
      }
    }
    if (!found) {
      throw new IllegalArgumentException("no entry " + key);
    }
    return out;
  }
}
