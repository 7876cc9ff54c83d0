package org.meshjava.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: every line is a {@code
 * # HELP}, a {@code # TYPE} or a sample; every sample belongs to the family whose {@code # TYPE}
 * came last (by its name, or the name plus a suffix its type allows); names, label names and
 * escapes follow the format; no series appears twice; a histogram's buckets are cumulative and end
 * at {@code +Inf} equal to its {@code _count}. Anything else throws {@link
 * IllegalArgumentException} naming the line.
 */
final class PrometheusText {
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> TYPES =
      Set.of("counter", "gauge", "histogram", "summary", "untyped");

  /** One sample: its full name, labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  /** One family: its name, type, help and samples in order. */
  record Family(String name, String type, String help, List<Sample> samples) {
    /** The one sample named {@code name} with exactly {@code labels}. */
    Sample sample(String name, Map<String, String> labels) {
      List<Sample> found =
          samples.stream().filter(s -> s.name.equals(name) && s.labels.equals(labels)).toList();
      if (found.size() != 1) {
        throw new AssertionError("no single sample " + name + labels + " in " + samples);
      }
      return found.getFirst();
    }
  }

  private PrometheusText() {}

  /** Parses {@code text} into its families, by name. */
  static Map<String, Family> parse(String text) {
    Map<String, Family> families = new LinkedHashMap<>();
    Map<String, String> help = new LinkedHashMap<>();
    Set<String> series = new java.util.HashSet<>();
    Family current = null;
    int n = 0;
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IllegalArgumentException("the exposition does not end with a newline");
    }
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      String where = "line " + n + " '" + line + "': ";
      if (line.startsWith("# HELP ")) {
        String rest = line.substring(7);
        int sp = rest.indexOf(' ');
        String name = sp < 0 ? rest : rest.substring(0, sp);
        name(name, where);
        if (help.put(name, sp < 0 ? "" : unescapeHelp(rest.substring(sp + 1), where)) != null) {
          throw new IllegalArgumentException(where + "a second HELP for " + name);
        }
      } else if (line.startsWith("# TYPE ")) {
        String[] parts = line.substring(7).split(" ", -1);
        if (parts.length != 2 || !TYPES.contains(parts[1])) {
          throw new IllegalArgumentException(where + "a TYPE line is a name and a known type");
        }
        name(parts[0], where);
        if (families.containsKey(parts[0])) {
          throw new IllegalArgumentException(where + "a second TYPE for " + parts[0]);
        }
        current =
            new Family(parts[0], parts[1], help.getOrDefault(parts[0], ""), new ArrayList<>());
        families.put(parts[0], current);
      } else if (line.startsWith("#")) {
        continue; // a comment
      } else {
        Sample s = sample(line, where);
        if (current == null || !belongs(s.name, current)) {
          throw new IllegalArgumentException(where + "a sample outside its family's TYPE block");
        }
        if (!series.add(s.name + new TreeMap<>(s.labels))) {
          throw new IllegalArgumentException(where + "a series that appeared before");
        }
        current.samples.add(s);
      }
    }
    families.values().forEach(PrometheusText::checkHistogram);
    return families;
  }

  private static boolean belongs(String sample, Family f) {
    List<String> suffixes =
        switch (f.type) {
          case "histogram" -> List.of("_bucket", "_count", "_sum", "_created");
          case "summary" -> List.of("", "_count", "_sum", "_created");
          case "counter" -> List.of("", "_total", "_created");
          default -> List.of("");
        };
    return suffixes.stream().anyMatch(x -> sample.equals(f.name + x));
  }

  private static void checkHistogram(Family f) {
    if (!f.type.equals("histogram")) {
      return;
    }
    Map<Map<String, String>, List<Sample>> bySeries = new LinkedHashMap<>();
    for (Sample s : f.samples) {
      if (s.name.endsWith("_bucket")) {
        if (!s.labels.containsKey("le")) {
          throw new IllegalArgumentException(f.name + ": a bucket without le");
        }
        Map<String, String> rest = new TreeMap<>(s.labels);
        rest.remove("le");
        bySeries.computeIfAbsent(rest, k -> new ArrayList<>()).add(s);
      }
    }
    for (var e : bySeries.entrySet()) {
      double last = -1;
      double lastLe = Double.NEGATIVE_INFINITY;
      for (Sample b : e.getValue()) {
        double le = value(b.labels.get("le"), f.name);
        if (le <= lastLe || b.value < last) {
          throw new IllegalArgumentException(f.name + e.getKey() + ": buckets not cumulative");
        }
        lastLe = le;
        last = b.value;
      }
      if (lastLe != Double.POSITIVE_INFINITY) {
        throw new IllegalArgumentException(f.name + e.getKey() + ": no +Inf bucket");
      }
      Sample count = f.sample(f.name + "_count", e.getKey());
      if (count.value != last) {
        throw new IllegalArgumentException(f.name + e.getKey() + ": +Inf is not _count");
      }
    }
  }

  private static Sample sample(String line, String where) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    name(name, where);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        if (eq < 0) {
          throw new IllegalArgumentException(where + "a label without '='");
        }
        String label = line.substring(i, eq);
        if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
          throw new IllegalArgumentException(where + "bad label name " + label);
        }
        if (eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
          throw new IllegalArgumentException(where + "a label value is quoted");
        }
        StringBuilder v = new StringBuilder();
        int j = eq + 2;
        for (; ; j++) {
          if (j >= line.length()) {
            throw new IllegalArgumentException(where + "an unterminated label value");
          }
          char c = line.charAt(j);
          if (c == '"') {
            break;
          }
          if (c == '\\') {
            char next = line.charAt(++j);
            v.append(
                switch (next) {
                  case '\\' -> '\\';
                  case '"' -> '"';
                  case 'n' -> '\n';
                  default -> throw new IllegalArgumentException(where + "bad escape \\" + next);
                });
          } else {
            v.append(c);
          }
        }
        if (labels.put(label, v.toString()) != null) {
          throw new IllegalArgumentException(where + "label " + label + " twice");
        }
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        } else if (line.charAt(i) != '}') {
          throw new IllegalArgumentException(where + "labels are separated by ','");
        }
      }
      i++;
    }
    if (i >= line.length() || line.charAt(i) != ' ') {
      throw new IllegalArgumentException(where + "no value");
    }
    String[] rest = line.substring(i + 1).split(" ", -1);
    if (rest.length > 2) {
      throw new IllegalArgumentException(where + "more than a value and a timestamp");
    }
    double value = value(rest[0], where);
    if (rest.length == 2) {
      try {
        Long.parseLong(rest[1]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + "a timestamp is an integer", e);
      }
    }
    return new Sample(name, labels, value);
  }

  private static double value(String v, String where) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        try {
          yield Double.parseDouble(v);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(where + "not a value: " + v, e);
        }
      }
    };
  }

  private static void name(String name, String where) {
    if (!METRIC_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(where + "bad metric name " + name);
    }
  }

  private static String unescapeHelp(String s, String where) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        if (i + 1 >= s.length()) {
          throw new IllegalArgumentException(where + "a trailing backslash");
        }
        char next = s.charAt(++i);
        out.append(
            switch (next) {
              case '\\' -> '\\';
              case 'n' -> '\n';
              default -> throw new IllegalArgumentException(where + "bad escape \\" + next);
            });
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
