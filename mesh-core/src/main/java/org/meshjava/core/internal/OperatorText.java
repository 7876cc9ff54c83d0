package org.meshjava.core.internal;

import java.util.Locale;

/**
 * The one rule for outside text (a request's {@code model}, an engine's exception message, a name
 * being refused) put into a line an operator reads: a refusal, a route's justification, a log line
 * or an error reply's message. Such text may hold what ends a line for some reader although Java
 * calls it no line end (NEL U+0085, U+2028 and U+2029, which JavaScript and many log viewers break
 * on), an escape that drives a terminal (ESC U+001B), or a format character that hides or reorders
 * what follows (a bidirectional override, a zero-width character, U+FEFF). Kept in one place so the
 * router's words, the name checks and the HTTP replies cannot drift apart. Stateless.
 */
public final class OperatorText {
  private OperatorText() {}

  /**
   * Whether {@code codePoint} may not stand in a name or be echoed into an operator's line as it
   * is: a control character, a line or paragraph separator, a format character, or an unpaired
   * surrogate ({@link WellFormedText}'s rule; it has no UTF-8).
   */
  public static boolean refused(int codePoint) {
    int type = Character.getType(codePoint);
    return Character.isISOControl(codePoint)
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || type == Character.FORMAT
        || WellFormedText.isUnpairedSurrogate(codePoint);
  }

  /**
   * {@code text} with each {@link #refused} code point written as {@code <U+hex>} (four hex digits
   * or more, as {@code <U+200B>}): how a refusal shows the name it refuses, so an operator can find
   * the character that was refused (shown as a space, a tab or a zero-width joiner looks like
   * nothing).
   */
  public static String named(String text) {
    return rewrite(text, false);
  }

  /**
   * {@code text} as one safe line: each line end (CR, LF, VT, FF, NEL, U+2028, U+2029) becomes a
   * space, so a multi-line message reads on as words, and every other {@link #refused} code point
   * is written as {@code <U+hex>}.
   */
  public static String oneLine(String text) {
    return rewrite(text, true);
  }

  /**
   * {@link #oneLine} cut to at most {@code most} characters and an ellipsis: a message bounded for
   * a log line or a client's reply. The cut falls between code points (half a pair would be an
   * unpaired surrogate, which has no UTF-8) and never inside a {@code <U+hex>} name, which cut in
   * two would read as text the sender wrote rather than a character this rule named.
   *
   * @throws IllegalArgumentException if {@code most} is below 1
   */
  public static String oneLine(String text, int most) {
    if (most < 1) {
      throw new IllegalArgumentException("most must be at least 1, not " + most);
    }
    String line = oneLine(text);
    if (line.length() <= most) {
      return line;
    }
    int cut = Character.isHighSurrogate(line.charAt(most - 1)) ? most - 1 : most;
    // The longest name is <U+10FFFF>, ten characters: one begun fewer than that before the cut and
    // not closed before it is cut out whole.
    int open = line.lastIndexOf("<U+", cut - 1);
    if (open >= 0 && cut - open < LONGEST_NAME && line.indexOf('>', open) >= cut) {
      cut = open;
    }
    return line.substring(0, cut) + "…";
  }

  private static final int LONGEST_NAME = "<U+10FFFF>".length();

  private static String rewrite(String text, boolean lineEndsAsSpaces) {
    if (text.codePoints().noneMatch(OperatorText::refused)) {
      return text;
    }
    StringBuilder s = new StringBuilder(text.length() + 16);
    text.codePoints()
        .forEach(
            c -> {
              if (!refused(c)) {
                s.appendCodePoint(c);
              } else if (lineEndsAsSpaces && endsALine(c)) {
                s.append(' ');
              } else {
                s.append(String.format(Locale.ROOT, "<U+%04X>", c));
              }
            });
    return s.toString();
  }

  private static boolean endsALine(int c) {
    return (c >= '\n' && c <= '\r') || c == 0x85 || c == 0x2028 || c == 0x2029;
  }
}
