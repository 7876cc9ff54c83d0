package org.meshjava.core.bytes;

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
    int n = text.length();
    if (n % 2 == 0) {
      // One pass that reads and checks together: a granted request's presentation is about 1 700
      // digits, read on every request. Any fault is described by refuse, which looks again.
      byte[] out = new byte[n / 2];
      for (int i = 0; i < n; i += 2) {
        int high = digit(text.charAt(i));
        int low = digit(text.charAt(i + 1));
        if ((high | low) < 0) {
          throw refusal(text);
        }
        out[i / 2] = (byte) (high << 4 | low);
      }
      return out;
    }
    throw refusal(text);
  }

  /** The value of a lowercase hex digit, or -1 for any other character. */
  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }

  /**
   * Why {@code text}, which is not lowercase hex, is refused: its first bad character and where it
   * is, else its odd length.
   */
  private static IllegalArgumentException refusal(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (digit(c) < 0) {
        return new IllegalArgumentException(
            "not lowercase hex: "
                + describe(c)
                + " at index "
                + i
                + (c >= 'A' && c <= 'F' ? " (write it in lower case)" : ""));
      }
    }
    return new IllegalArgumentException(
        "not lowercase hex: " + text.length() + " digits, an odd number (two make a byte)");
  }

  /** The character as a reader can see it; upper case is told apart, being the common slip. */
  private static String describe(char c) {
    if (c >= 'A' && c <= 'F') {
      return "upper-case '" + c + "'";
    }
    return c > ' ' && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
  }
}
