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
 * @param kind the unknown kind named under {@code caveat}
 * @param raw the whole caveat map as decoded
 */
public record UnknownCaveat(String kind, CborMap raw) implements Caveat {

  /** Validates that {@code raw} names {@code kind} and that the kind is really unknown. */
  public UnknownCaveat {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(raw, "raw");
    if (!raw.get(KIND_KEY).equals(Optional.of(new CborText(kind)))) {
      throw new IllegalArgumentException("raw caveat does not name kind '" + kind + "'");
    }
    if (kind.equals(ModelIn.KIND) || kind.equals(MaxCostUj.KIND)) {
      throw new IllegalArgumentException("'" + kind + "' is a known caveat kind");
    }
  }

  @Override
  public boolean narrows(Caveat parentCaveat) {
    // We cannot know how an unknown kind narrows, so only an identical copy keeps it.
    return equals(parentCaveat);
  }

  @Override
  public CborMap toCbor() {
    return raw;
  }
}
