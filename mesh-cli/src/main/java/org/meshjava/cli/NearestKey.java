package org.meshjava.cli;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The known configuration keys an unknown one was most likely meant as: the same key written in
 * another case or with {@code -}, {@code .} or camel case for {@code _} ({@code keyFile}, {@code
 * key-file}); else the keys fewest typed letters away ({@code jounral} for {@code journal}), with
 * those the typed key begins ({@code every_r} for {@code every_records}, {@code write_timeout} for
 * {@code write_timeout_s}). Every key that is as likely is named ({@code every} names {@code
 * every_records} and {@code every_s}): naming one alone where another is as near would send the
 * user after the wrong setting. None where none is near, or where more than {@link #MAX_NAMED} are.
 * Stateless.
 */
final class NearestKey {
  private NearestKey() {}

  /** The most keys named at once; past it the guess says too little to help. */
  static final int MAX_NAMED = 3;

  /** The fewest letters a typed key has for the keys it begins to count as meant. */
  private static final int MIN_PREFIX = 3;

  /**
   * The known keys {@code typed} is nearest to, sorted; empty if none is near enough, or too many
   * are.
   */
  static List<String> of(String typed, Collection<String> known) {
    String asKey = normalised(typed);
    if (known.contains(asKey)) {
      return List.of(asKey);
    }
    int bestDistance = Integer.MAX_VALUE;
    Set<String> nearest = new TreeSet<>();
    Set<String> begun = new TreeSet<>();
    for (String k : known) {
      if (asKey.length() >= MIN_PREFIX && k.startsWith(asKey)) {
        begun.add(k);
      }
      int allowed = allowed(Math.min(asKey.length(), k.length()));
      // Exact, as no alignment is shorter than the difference in length; without it a long typed
      // key (a megabyte pasted by mistake) would cost a row of the table per letter, per key.
      if (Math.abs(asKey.length() - k.length()) > allowed) {
        continue;
      }
      int d = distance(asKey, k);
      if (d > allowed) {
        continue;
      }
      if (d < bestDistance) {
        nearest.clear();
        bestDistance = d;
      }
      if (d == bestDistance) {
        nearest.add(k);
      }
    }
    Set<String> meant = new TreeSet<>(begun);
    meant.addAll(nearest);
    return meant.size() > MAX_NAMED ? List.of() : List.copyOf(meant);
  }

  /** How many edits a key of {@code length} characters may be from what was typed. */
  private static int allowed(int length) {
    return length <= 4 ? 1 : length <= 8 ? 2 : 3;
  }

  /** {@code typed} in the keys' own form: lower case, words joined by {@code _}. */
  private static String normalised(String typed) {
    String snake = typed.replaceAll("([a-z0-9])([A-Z])", "$1_$2");
    return snake.toLowerCase(Locale.ROOT).replace('-', '_').replace('.', '_');
  }

  /**
   * The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
   * neighbouring letters, each one edit.
   */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  /**
   * {@code " (did you mean 'KEY'?)"} for the nearest key ({@code 'A' or 'B'} where two are as
   * near), or nothing.
   */
  static String hint(String typed, Collection<String> known) {
    List<String> meant = of(typed, known).stream().map(k -> "'" + k + "'").toList();
    return meant.isEmpty() ? "" : " (did you mean " + alternatives(meant) + "?)";
  }

  /** {@code a}, {@code a or b}, {@code a, b or c}. */
  static String alternatives(List<String> names) {
    int last = names.size() - 1;
    return last <= 0
        ? String.join("", names)
        : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
  }
}
