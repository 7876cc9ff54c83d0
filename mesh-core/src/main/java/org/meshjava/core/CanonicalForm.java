package org.meshjava.core;

import org.meshjava.core.cbor.CborValue;

/** A value with a canonical CBOR form, and therefore a {@link ContentId}. */
public interface CanonicalForm {
  /** Returns the canonical CBOR form of this value. */
  CborValue toCbor();
}
