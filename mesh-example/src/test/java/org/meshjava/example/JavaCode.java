package org.meshjava.example;

/**
 * Java source with its comments blanked out, so a check that a name occurs in a class reads only
 * what the compiler reads: a javadoc that still names a renamed member does not count. String,
 * text-block and character literals are kept, and a comment marker inside one is not a comment.
 * Unicode escapes are read first, as the compiler reads them (JLS §3.3), so {@code \u005cu002F}
 * twice is a line comment's marker.
 */
final class JavaCode {
  private JavaCode() {}

  /**
   * {@code source}, its unicode escapes read, with each comment, its markers included, replaced by
   * one space.
   */
  static String withoutComments(String raw) {
    String source = withUnicodeEscapesRead(raw);
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    // Where each character that may open a comment or a literal is next met, each found again
    // only once passed: the text between them is copied whole, which keeps reading every source
    // of the tree fast from a cold JVM.
    int slash = -1;
    int quote = -1;
    int apostrophe = -1;
    while (i < n) {
      slash = slash < i ? nextOf(source, '/', i) : slash;
      quote = quote < i ? nextOf(source, '"', i) : quote;
      apostrophe = apostrophe < i ? nextOf(source, '\'', i) : apostrophe;
      int next = Math.min(slash, Math.min(quote, apostrophe));
      out.append(source, i, next);
      i = next;
      if (i == n) {
        break;
      }
      if (source.startsWith("//", i)) {
        int end = source.indexOf('\n', i);
        i = end < 0 ? n : end;
        out.append(' ');
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (source.startsWith("\"\"\"", i)) {
        int stop = endOfTextBlock(source, i);
        out.append(source, i, stop);
        i = stop;
      } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
        int stop = endOfLiteral(source, i);
        out.append(source, i, stop);
        i = stop;
      } else {
        out.append(source.charAt(i++));
      }
    }
    return out.toString();
  }

  /** The index of the first {@code c} at or after {@code from}, or the length if there is none. */
  private static int nextOf(String source, char c, int from) {
    int at = source.indexOf(c, from);
    return at < 0 ? source.length() : at;
  }

  /** The index just past the string or character literal that opens at {@code start}. */
  private static int endOfLiteral(String source, int start) {
    char quote = source.charAt(start);
    int i = start + 1;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (c == '\\') {
        i += 2;
      } else if (c == quote || c == '\n') {
        return i + 1;
      } else {
        i++;
      }
    }
    return source.length();
  }

  /**
   * The index just past the text block that opens at {@code start}: the first three quotes that no
   * backslash escapes ({@code \"""} inside one is content, and so is the quote of {@code \""""}
   * that ends one).
   */
  private static int endOfTextBlock(String source, int start) {
    int i = start + 3;
    while (i < source.length()) {
      if (source.charAt(i) == '\\') {
        i += 2;
      } else if (source.startsWith("\"\"\"", i)) {
        return i + 3;
      } else {
        i++;
      }
    }
    return source.length();
  }

  /**
   * {@code source} with each unicode escape replaced by its character. A backslash begins one only
   * where an even number of backslashes precede it, so a backslash pair is copied whole.
   */
  private static String withUnicodeEscapesRead(String source) {
    if (source.indexOf("\\u") < 0) {
      return source;
    }
    StringBuilder out = new StringBuilder(source.length());
    int n = source.length();
    int i = 0;
    while (i < n) {
      int backslash = nextOf(source, '\\', i);
      out.append(source, i, backslash);
      i = backslash;
      if (i == n) {
        break;
      }
      int hex = i + 1;
      while (hex < n && source.charAt(hex) == 'u') {
        hex++;
      }
      if (hex > i + 1 && isFourHexDigits(source, hex)) {
        out.append((char) Integer.parseInt(source, hex, hex + 4, 16));
        i = hex + 4;
      } else {
        int stop = i + 1 < n && source.charAt(i + 1) == '\\' ? i + 2 : i + 1;
        out.append(source, i, stop);
        i = stop;
      }
    }
    return out.toString();
  }

  private static boolean isFourHexDigits(String source, int from) {
    if (from + 4 > source.length()) {
      return false;
    }
    for (int i = from; i < from + 4; i++) {
      if (Character.digit(source.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
