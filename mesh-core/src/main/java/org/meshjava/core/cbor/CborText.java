package org.meshjava.core.cbor;

import java.util.Objects;

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
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
          throw new IllegalArgumentException("text has an unpaired surrogate at index " + i);
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        throw new IllegalArgumentException("text has an unpaired surrogate at index " + i);
      }
    }
  }

  /** Returns the text string {@code value}. */
  public static CborText of(String value) {
    return new CborText(value);
  }
}
