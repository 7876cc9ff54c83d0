package org.meshjava.jcp;

/** What was wrong with bytes that did not decode as a grant, chain or presentation. Stable. */
public enum Malformation {
  /** Not canonical CBOR at all (see the cause for the rule and offset). */
  CBOR,
  /** Canonical CBOR, but not the expected shape: a key missing, extra, or of the wrong type. */
  SHAPE,
  /** A {@code did:key} that does not parse. */
  DID_KEY,
  /** A content id or grant id that is not 64 lowercase hex digits. */
  CONTENT_ID,
  /** A byte string of the wrong length (nonce, signature). */
  LENGTH,
  /** A value out of its range, or a set not in canonical order or with duplicates. */
  VALUE,
  /** Hex text that is not hex. */
  HEX
}
