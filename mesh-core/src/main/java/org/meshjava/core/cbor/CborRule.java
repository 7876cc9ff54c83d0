package org.meshjava.core.cbor;

/** The rule of canonical mesh/1 CBOR that a rejected input broke. Stable; match on it. */
public enum CborRule {
  /** The input ended inside an item. */
  TRUNCATED,
  /** An argument was not in its shortest form (RFC 8949 §4.2.1). */
  NON_SHORTEST,
  /** An indefinite-length string, array or map. */
  INDEFINITE_LENGTH,
  /** A float, boolean, null, undefined or other simple value (major type 7). */
  FORBIDDEN_SIMPLE,
  /** Map keys not in bytewise order of their encodings. */
  UNSORTED_KEYS,
  /** The same key twice in one map. */
  DUPLICATE_KEY,
  /** Bytes left after the single top-level item. */
  TRAILING_BYTES,
  /** Nesting deeper than the decoder's limit. */
  TOO_DEEP,
  /** A declared length beyond the remaining input or the decoder's size limit. */
  LENGTH_LIMIT,
  /** An integer outside the range of a signed 64-bit value. */
  INTEGER_RANGE,
  /** A text string that is not well-formed UTF-8. */
  INVALID_UTF8,
  /** Additional-information values 28–30, reserved by RFC 8949. */
  RESERVED_ADDITIONAL_INFO,
  /** The input is larger than the decoder accepts. */
  INPUT_TOO_LARGE
}
