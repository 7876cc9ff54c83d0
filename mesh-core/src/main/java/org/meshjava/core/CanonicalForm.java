package org.meshjava.core;

/**
 * A value with a canonical CBOR encoding (SPEC.md section 10), and therefore a {@link ContentId}.
 * The encoding is given as bytes: they are what a content id hashes and what a signature covers,
 * and mesh-java's CBOR value model is not API.
 *
 * <p>Implementations are immutable values, safe to share between threads.
 */
public interface CanonicalForm {
  /** Returns the canonical CBOR encoding of this value: a fresh array on each call. */
  byte[] encode();
}
