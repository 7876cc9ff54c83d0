package org.meshjava.jcp;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;

/**
 * A caveat of a kind this implementation does not know, kept exactly as it was decoded so the
 * grant's signature still verifies over it. The gate refuses any chain carrying one with {@link
 * DenialLabel#UNKNOWN_CAVEAT}: a condition we cannot check is a condition we cannot honour.
 * Immutable.
 *
 * <p>Read one with {@link Caveat#decode(byte[])}; {@link #encode()} gives back the bytes it was
 * read from.
 */
public final class UnknownCaveat implements Caveat {
  private final String kind;
  private final CborMap raw;

  /** Validates that {@code raw}, the whole caveat map as decoded, names {@code kind}, unknown. */
  UnknownCaveat(String kind, CborMap raw) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(raw, "raw");
    if (!raw.get(KIND_KEY).equals(Optional.of(new CborText(kind)))) {
      throw new IllegalArgumentException("raw caveat does not name kind '" + kind + "'");
    }
    if (kind.equals(ModelIn.KIND) || kind.equals(MaxCostUj.KIND)) {
      throw new IllegalArgumentException("'" + kind + "' is a known caveat kind");
    }
    this.kind = kind;
    this.raw = raw;
  }

  /** The unknown kind named under {@code caveat}. */
  @Override
  public String kind() {
    return kind;
  }

  /** The whole caveat map as decoded. */
  CborMap raw() {
    return raw;
  }

  @Override
  public boolean narrows(Caveat parentCaveat) {
    // We cannot know how an unknown kind narrows, so only an identical copy keeps it.
    return equals(parentCaveat);
  }

  /** Equal when the maps are: the map names the kind. */
  @Override
  public boolean equals(Object o) {
    return o instanceof UnknownCaveat u && raw.equals(u.raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return "UnknownCaveat[kind=" + kind + ", raw=" + raw + "]";
  }
}
