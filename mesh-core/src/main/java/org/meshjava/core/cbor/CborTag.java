package org.meshjava.core.cbor;

import java.util.Objects;
import org.meshjava.core.Unsigned;

/**
 * A tagged CBOR value (major type 6), such as the COSE_Sign1 tag 18.
 *
 * @param tag the tag number, non-negative
 * @param content the tagged value
 */
public record CborTag(long tag, CborValue content) implements CborValue {

  /** Validates the tag. */
  public CborTag {
    Unsigned.u64("tag", tag);
    Objects.requireNonNull(content, "content");
  }
}
