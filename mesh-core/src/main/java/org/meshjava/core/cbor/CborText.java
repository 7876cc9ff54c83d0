package org.meshjava.core.cbor;

import java.util.Objects;
import org.meshjava.core.internal.WellFormedText;

/**
 * A CBOR text string (major type 3).
 *
 * @param value the text; must be well-formed Unicode (no unpaired surrogates), since it is encoded
 *     as UTF-8
 */
public record CborText(String value) implements CborValue {

  /** Validates the text. */
  public CborText {
    Objects.requireNonNull(value, "value");
    int bad = WellFormedText.unpairedSurrogate(value);
    if (bad >= 0) {
      throw new IllegalArgumentException("text has an unpaired surrogate at index " + bad);
    }
  }

  /** Returns the text string {@code value}. */
  public static CborText of(String value) {
    return new CborText(value);
  }
}
