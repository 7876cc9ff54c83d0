package org.meshjava.core.cbor;

import java.util.List;

/**
 * A CBOR array (major type 4) of definite length.
 *
 * @param items the items, copied into an unmodifiable list
 */
public record CborArray(List<CborValue> items) implements CborValue {

  /** Copies the items. */
  public CborArray {
    items = List.copyOf(items);
  }

  /** Returns an array of the given items. */
  public static CborArray of(CborValue... items) {
    return new CborArray(List.of(items));
  }
}
