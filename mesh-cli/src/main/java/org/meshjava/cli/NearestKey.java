package org.meshjava.cli;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The known configuration key an unknown one was most likely meant as: the same key written in
 * another case or with {@code -}, {@code .} or camel case for {@code _} ({@code keyFile}, {@code
 * key-file}), else the one key a few typed letters away ({@code jounral}, {@code timeout} for
 * {@code timeout_s}). None where two are equally near or none is near: a wrong guess would send the
 * user after the wrong setting. Stateless.
 */
final class NearestKey {
  private NearestKey() {}

  /**
   * The known key {@code typed} is nearest to, if one is near enough and alone at that distance.
   */
  static Optional<String> of(String typed, Collection<String> known) {
    String asKey = normalised(typed);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    boolean tie = false;
    for (String k : known) {
      int d = asKey.equals(k) ? 0 : distance(asKey, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
        tie = false;
      } else if (d == bestDistance) {
        tie = true;
      }
    }
    if (best == null || tie || bestDistance > allowed(Math.min(asKey.length(), best.length()))) {
      return Optional.empty();
    }
    return Optional.of(best);
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

  /** {@code " (did you mean 'KEY'?)"} for the nearest key, or nothing. */
  static String hint(String typed, Collection<String> known) {
    return of(typed, known).map(k -> " (did you mean '" + k + "'?)").orElse("");
  }
}
