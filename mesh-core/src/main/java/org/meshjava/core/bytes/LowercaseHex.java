package org.meshjava.core.bytes;

import java.util.HexFormat;
import java.util.Objects;

/**
 * Reads hex text the one way mesh-java reads all of it: lowercase digits only ({@code 0-9a-f}), an
 * even number of them, nothing else (SPEC.md "Conventions", 10.2).
 *
 * <p>Why one rule for every input: inside a signed map an id is its hex text, so an upper-case id
 * is other bytes and must be refused there; and a reader that took upper case for an envelope or a
 * key seed but not for a chain or an id would leave a user guessing which input wants which. So
 * ids, envelopes, grant chains, presentations, revocations, key seeds and journal fields are all
 * read through here, and a refusal always says "not lowercase hex" and where.
 *
 * <p>Surrounding whitespace is the caller's to strip or refuse; here it is a bad character.
 *
 * <p>Holds no state: safe from any thread.
 */
public final class LowercaseHex {
  private static final HexFormat HEX = HexFormat.of();

  private LowercaseHex() {}

  /**
   * Returns the bytes {@code text} spells.
   *
   * @throws IllegalArgumentException if it is not lowercase hex; the message starts "not lowercase
   *     hex: " and names the first bad character and its index, or the odd length, so that a caller
   *     can put what it was reading in front ("envelope 2 is not lowercase hex: …")
   */
  public static byte[] decode(String text) {
    Objects.requireNonNull(text, "text");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        throw new IllegalArgumentException(
            "not lowercase hex: "
                + describe(c)
                + " at index "
                + i
                + (c >= 'A' && c <= 'F' ? " (write it in lower case)" : ""));
      }
    }
    if (text.length() % 2 != 0) {
      throw new IllegalArgumentException(
          "not lowercase hex: " + text.length() + " digits, an odd number (two make a byte)");
    }
    return HEX.parseHex(text);
  }

  /** The character as a reader can see it; upper case is told apart, being the common slip. */
  private static String describe(char c) {
    if (c >= 'A' && c <= 'F') {
      return "upper-case '" + c + "'";
    }
    return c > ' ' && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
  }
}
