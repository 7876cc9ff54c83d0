package org.meshjava.jcp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.bytes.LowercaseHex;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborItemMemo;
import org.meshjava.core.cbor.CborLimits;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;

/**
 * Reads the fields of one decoded CBOR map strictly: text keys only, exactly the keys expected,
 * each of the expected type. Every failure is a {@link MalformedGrantException} naming the field's
 * path, so hostile bytes never escape as an unchecked exception. Not thread-safe; use once.
 */
final class FieldReader {
  private final CborMap map;
  private final String path;

  private FieldReader(CborMap map, String path) {
    this.map = map;
    this.path = path;
  }

  /** Decodes canonical CBOR bytes, mapping the codec's error to ours. */
  static CborValue decode(byte[] bytes, String path) throws MalformedGrantException {
    return decode(bytes, path, null);
  }

  /**
   * Decodes canonical CBOR bytes as {@link #decode(byte[], String)} does, taking the items {@code
   * memo} holds from it when it is not null.
   */
  static CborValue decode(byte[] bytes, String path, @Nullable CborItemMemo memo)
      throws MalformedGrantException {
    try {
      return memo == null
          ? CanonicalCbor.decode(bytes)
          : CanonicalCbor.decode(bytes, CborLimits.DEFAULT, memo);
    } catch (CborDecodeException e) {
      throw new MalformedGrantException(Malformation.CBOR, path, String.valueOf(e.getMessage()), e);
    }
  }

  /** Parses lowercase hex text into bytes ({@link LowercaseHex}). */
  static byte[] unhex(String hex, String path) throws MalformedGrantException {
    try {
      return LowercaseHex.decode(hex);
    } catch (IllegalArgumentException e) {
      throw new MalformedGrantException(Malformation.HEX, path, String.valueOf(e.getMessage()));
    }
  }

  /**
   * Opens {@code value} as a map with exactly the {@code required} keys and maybe {@code optional}.
   */
  static FieldReader of(CborValue value, String path, Set<String> required, Set<String> optional)
      throws MalformedGrantException {
    if (!(value instanceof CborMap m)) {
      throw new MalformedGrantException(Malformation.SHAPE, path, "expected a map");
    }
    for (CborMap.Entry e : m.entries()) {
      if (!(e.key() instanceof CborText(String k))) {
        throw new MalformedGrantException(
            Malformation.SHAPE, path, "a key is not text: " + e.key());
      }
      if (!required.contains(k) && !optional.contains(k)) {
        throw new MalformedGrantException(Malformation.SHAPE, path + "." + k, "unexpected key");
      }
    }
    for (String k : required) {
      if (m.get(k).isEmpty()) {
        throw new MalformedGrantException(Malformation.SHAPE, path + "." + k, "missing");
      }
    }
    return new FieldReader(m, path);
  }

  String path(String key) {
    return path + "." + key;
  }

  CborValue value(String key) throws MalformedGrantException {
    return map.get(key)
        .orElseThrow(() -> new MalformedGrantException(Malformation.SHAPE, path(key), "missing"));
  }

  boolean has(String key) {
    return map.get(key).isPresent();
  }

  String text(String key) throws MalformedGrantException {
    return asText(value(key), path(key));
  }

  static String asText(CborValue v, String path) throws MalformedGrantException {
    if (!(v instanceof CborText(String s))) {
      throw new MalformedGrantException(Malformation.SHAPE, path, "expected text");
    }
    return s;
  }

  long uint(String key) throws MalformedGrantException {
    if (!(value(key) instanceof CborInt(long v)) || v < 0) {
      throw new MalformedGrantException(
          Malformation.SHAPE, path(key), "expected an unsigned integer");
    }
    return v;
  }

  byte[] bytes(String key, int length) throws MalformedGrantException {
    if (!(value(key) instanceof CborBytes b)) {
      throw new MalformedGrantException(Malformation.SHAPE, path(key), "expected a byte string");
    }
    if (b.length() != length) {
      throw new MalformedGrantException(
          Malformation.LENGTH, path(key), "expected " + length + " bytes, got " + b.length());
    }
    return b.bytes();
  }

  List<CborValue> array(String key) throws MalformedGrantException {
    if (!(value(key) instanceof CborArray(List<CborValue> items))) {
      throw new MalformedGrantException(Malformation.SHAPE, path(key), "expected an array");
    }
    return items;
  }

  DidKey didKey(String key) throws MalformedGrantException {
    return asDidKey(text(key), path(key));
  }

  static DidKey asDidKey(String text, String path) throws MalformedGrantException {
    try {
      return DidKey.parse(text);
    } catch (DidKeyException e) {
      throw new MalformedGrantException(
          Malformation.DID_KEY, path, String.valueOf(e.getMessage()), e);
    }
  }

  static ContentId asContentId(CborValue v, String path) throws MalformedGrantException {
    String s = asText(v, path);
    try {
      return ContentId.fromHex(s);
    } catch (IllegalArgumentException e) {
      throw new MalformedGrantException(
          Malformation.CONTENT_ID, path, String.valueOf(e.getMessage()));
    }
  }

  Optional<ContentId> optionalContentId(String key) throws MalformedGrantException {
    return has(key) ? Optional.of(asContentId(value(key), path(key))) : Optional.empty();
  }

  /**
   * Reads a set encoded as an array, refusing one that is empty, unordered or repeats an item: a
   * set has one canonical encoding, and accepting others would make equal grants hash apart.
   */
  static List<CborValue> canonicalSet(List<CborValue> items, String path)
      throws MalformedGrantException {
    if (items.isEmpty()) {
      throw new MalformedGrantException(Malformation.VALUE, path, "an empty set");
    }
    byte[] previous = null;
    for (int i = 0; i < items.size(); i++) {
      byte[] enc = items.get(i).encode();
      if (previous != null && Arrays.compareUnsigned(previous, enc) >= 0) {
        throw new MalformedGrantException(
            Malformation.VALUE, path + "[" + i + "]", "set items out of order or repeated");
      }
      previous = enc;
    }
    return new ArrayList<>(items);
  }
}
