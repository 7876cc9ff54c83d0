package org.meshjava.jcp;

import org.meshjava.core.DenialLabel;

/**
 * A condition a grant attaches to its use. The set is closed on purpose: a gate must understand
 * every caveat it enforces, so a caveat it does not know decodes as {@link UnknownCaveat} and is
 * refused with {@link DenialLabel#UNKNOWN_CAVEAT} (fail closed). Adding a caveat means adding a
 * permitted type here and teaching the {@link Gate} to enforce it.
 *
 * <p>Wire form: a map whose text key {@code caveat} names the kind; the other keys belong to the
 * kind. All implementations are immutable.
 */
public sealed interface Caveat permits ModelIn, MaxCostUj, UnknownCaveat {
  /** The key naming a caveat's kind. */
  String KIND_KEY = "caveat";

  /** Returns the kind, the value under {@code caveat} on the wire. */
  String kind();

  /**
   * Whether this caveat is at least as strict as {@code parentCaveat}, so a child carrying it keeps
   * the parent's condition (attenuation).
   */
  boolean narrows(Caveat parentCaveat);

  /** Returns the wire form's canonical CBOR encoding. */
  default byte[] encode() {
    return Grant.caveatCbor(this).encode();
  }

  /**
   * Reads a caveat from its wire form's canonical encoding: one of the kinds above, or an {@link
   * UnknownCaveat} kept as it was written.
   *
   * @throws MalformedGrantException if the bytes are not a canonical caveat map
   */
  static Caveat decode(byte[] bytes) throws MalformedGrantException {
    return Grant.readCaveat(FieldReader.decode(bytes, "caveat"), "caveat");
  }
}
