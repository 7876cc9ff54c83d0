package org.meshjava.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The bounds on every piece of text in a {@code mesh serve} configuration, keys and values, checked
 * before any setting is read. No setting is a path, host, URL or name longer than {@link #LONGEST}
 * characters (Linux's longest path), and none can hold a NUL: a 10 MB value was taken for a file
 * name and echoed whole in the one-line refusal, and a NUL in a path was printed raw in the line,
 * without naming the key that held it.
 */
final class SettingText {
  /** The most characters any key or text value may have: PATH_MAX on Linux. */
  static final int LONGEST = 4096;

  /** How much of an over-long key a refusal shows. */
  private static final int SHOWN = 40;

  private SettingText() {}

  /**
   * Refuses the first key or text value under {@code root} that is longer than {@link #LONGEST} or
   * holds a NUL, naming where it is ({@code backends[0].model_dir}) after {@code file}.
   */
  static void check(JsonNode root, String file) throws CliException {
    check(root, "", file);
  }

  private static void check(JsonNode n, String where, String file) throws CliException {
    if (n.isTextual()) {
      refuseIfUnfit(n.textValue(), file + ": " + where);
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        check(n.get(i), where + "[" + i + "]", file);
      }
    } else if (n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        String key = e.getKey();
        String inside = where.isEmpty() ? "" : " in " + where;
        if (key.length() > LONGEST || key.indexOf('\0') >= 0) {
          refuseIfUnfit(key, file + ": the key '" + shown(key) + "'" + inside);
        }
        // The key as shown, not whole: a value's refusal names every key above it, each up to
        // LONGEST long, and a terminal would act on their control characters.
        check(e.getValue(), where.isEmpty() ? shown(key) : where + "." + shown(key), file);
      }
    }
  }

  private static void refuseIfUnfit(String text, String what) throws CliException {
    if (text.indexOf('\0') >= 0) {
      throw new CliException(
          what + " holds a NUL character (\\u0000), which no file name or setting can hold");
    }
    if (text.length() > LONGEST) {
      throw new CliException(
          what
              + " is "
              + text.length()
              + " characters long; no setting takes more than "
              + LONGEST);
    }
  }

  /**
   * The start of {@code key} (its first 40 characters), its control characters shown as '?', for a
   * one-line message: also what a refusal of an unknown key shows of it.
   */
  static String shown(String key) {
    String start = key.length() > SHOWN ? key.substring(0, SHOWN) + "…" : key;
    return start.replaceAll("\\p{Cntrl}", "?");
  }
}
