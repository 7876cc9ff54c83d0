package org.meshjava.cli;

/** A count with its noun in the right number: "1 receipt", "2 receipts", "0 receipts". */
final class Counted {
  private Counted() {}

  /** Returns {@code n} and {@code noun}, adding "s" unless {@code n} is one. */
  static String of(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
