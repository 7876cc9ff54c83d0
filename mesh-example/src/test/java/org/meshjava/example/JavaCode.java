package org.meshjava.example;

/**
 * Java source with its comments blanked out, so a check that a name occurs in a class reads only
 * what the compiler reads: a javadoc that still names a renamed member does not count. String,
 * text-block and character literals are kept, and a comment marker inside one is not a comment.
 */
final class JavaCode {
  private JavaCode() {}

  /** {@code source} with each comment, its markers included, replaced by one space. */
  static String withoutComments(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
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
}
