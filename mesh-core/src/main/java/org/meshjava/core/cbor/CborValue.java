package org.meshjava.core.cbor;

/**
 * A value of the CBOR subset that mesh/1 signs and hashes: integers, byte strings, text strings,
 * arrays, maps and tags. Floats, booleans, null and undefined are deliberately absent, because §6
 * forbids them in a signed core and a value model that cannot hold them cannot leak them.
 *
 * <p>Every implementation is immutable and thread-safe. {@link #encode()} returns the RFC 8949
 * §4.2.1 core deterministic encoding, so equal values always encode to equal bytes.
 */
public sealed interface CborValue
    permits CborInt, CborBytes, CborText, CborArray, CborMap, CborTag {

  /** Returns the canonical (deterministic) encoding of this value. */
  default byte[] encode() {
    return CanonicalCbor.encode(this);
  }
}
