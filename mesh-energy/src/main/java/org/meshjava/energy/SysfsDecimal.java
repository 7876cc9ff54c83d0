package org.meshjava.energy;

/**
 * The value of a sysfs attribute the kernel writes as an unsigned 64-bit decimal ({@code %llu}):
 * {@code energy_uj} and {@code max_energy_range_uj}. Only ASCII digits are a value: {@link
 * Long#parseLong} would also take a sign and any script's digits, none of which the kernel writes,
 * so text holding them is something other than the counter and is refused, naming what it holds.
 */
final class SysfsDecimal {
  /** How much of a refused text a message quotes: the file may hold anything, of any length. */
  private static final int QUOTED_CHARS = 40;

  private SysfsDecimal() {}

  /**
   * Parses {@code text} (already trimmed, as {@link SysfsReader#read} returns it).
   *
   * @throws NumberFormatException whose message, to follow the file's name, says what the text is
   *     instead of a value: empty, not digits, or more than a {@code long} holds
   */
  static long parse(String text) {
    if (text.isEmpty()) {
      throw new NumberFormatException("is empty, not a number of µJ");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new NumberFormatException(
            "holds '"
                + quoted(text)
                + "', not an unsigned decimal number of µJ (the kernel writes digits only)");
      }
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new NumberFormatException(
          "holds "
              + quoted(text)
              + ", a number of "
              + text.length()
              + " digits, more than the "
              + Long.MAX_VALUE
              + " µJ a counter is read into");
    }
  }

  private static String quoted(String text) {
    return text.length() <= QUOTED_CHARS ? text : text.substring(0, QUOTED_CHARS) + "…";
  }
}
