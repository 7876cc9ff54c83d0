package org.meshjava.core.internal;

/**
 * The rule that a Java string is well-formed Unicode: it holds no unpaired surrogate (a high
 * surrogate not followed by a low one, or a low one not preceded by a high one). Only such a string
 * has a UTF-8 form, and so exactly one: canonical CBOR text (SPEC.md 10, rule 4), a recipe's or a
 * backend's name on a receipt (§4) and a prompt's text, whose bytes a request id addresses (§3.1),
 * all need one. Each caller refuses in its own words; the rule is this class's alone.
 *
 * <p>Internal, exported only to the router and the HTTP binding, which refuse names and bodies by
 * it; core's own records ({@code Recipe}, {@code PromptText}, {@code CborText}) call it from inside
 * this module. Where the router runs on the class path beside a modular mesh-core (an engine
 * module's tests), the qualified export does not reach it, and those tests export this package to
 * the class path with {@code --add-exports}, as they already do for {@code JvmFailure}.
 *
 * <p>Stateless and thread-safe.
 */
public final class WellFormedText {

  private WellFormedText() {}

  /**
   * The index of the first UTF-16 code unit in {@code text} that is an unpaired surrogate, or -1
   * when {@code text} is well-formed.
   *
   * @param text the text to scan
   * @return that index, or -1
   */
  public static int unpairedSurrogate(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether {@code codePoint}, one of the code points of {@link String#codePoints()}, is an
   * unpaired surrogate: that stream joins each pair into one code point, so a surrogate it yields
   * is one without its partner. The same rule as {@link #unpairedSurrogate(CharSequence)}, for a
   * caller that already walks a text's code points.
   *
   * @param codePoint a code point of {@link String#codePoints()}
   * @return whether it is an unpaired surrogate
   */
  public static boolean isUnpairedSurrogate(int codePoint) {
    return codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE;
  }
}
