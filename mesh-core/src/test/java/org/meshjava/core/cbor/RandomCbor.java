package org.meshjava.core.cbor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Random values over the whole {@link CborValue} model, biased towards the places encoders get
 * wrong: integer arguments at every width boundary, lengths of 23/24 and 255/256, non-ASCII and
 * astral text, maps with integer, negative, text and composite keys, and tags. Deterministic for a
 * given {@link Random}, so a failure reproduces from its seed.
 */
final class RandomCbor {
  /** Every boundary between argument widths, on both sides, as unsigned arguments. */
  static final long[] BOUNDARIES = {
    0,
    1,
    22,
    23,
    24,
    25,
    254,
    255,
    256,
    257,
    65534,
    65535,
    65536,
    65537,
    0xFFFF_FFFEL,
    0xFFFF_FFFFL,
    0x1_0000_0000L,
    0x1_0000_0001L,
    Long.MAX_VALUE - 1,
    Long.MAX_VALUE
  };

  private final Random random;
  private final int maxDepth;

  RandomCbor(Random random, int maxDepth) {
    this.random = random;
    this.maxDepth = maxDepth;
  }

  /** A random value nested at most {@code maxDepth} levels. */
  CborValue value() {
    return value(1);
  }

  private CborValue value(int depth) {
    boolean leafOnly = depth >= maxDepth;
    int kind = random.nextInt(leafOnly ? 3 : 6);
    return switch (kind) {
      case 0 -> new CborInt(integer());
      case 1 -> CborBytes.of(bytes());
      case 2 -> new CborText(text());
      case 3 -> new CborArray(items(depth));
      case 4 -> map(depth);
      default -> new CborTag(unsignedArgument(), value(depth + 1));
    };
  }

  /** An integer across the whole signed 64-bit range, mostly near a width boundary. */
  long integer() {
    long magnitude = unsignedArgument();
    // A CBOR negative integer n is stored as the argument -1-n, so negate via the argument.
    return random.nextBoolean() ? magnitude : -1 - magnitude;
  }

  /** A non-negative argument, mostly at or near a width boundary. */
  long unsignedArgument() {
    return switch (random.nextInt(4)) {
      case 0 -> BOUNDARIES[random.nextInt(BOUNDARIES.length)];
      case 1 -> random.nextInt(30);
      case 2 -> {
        int bits = 1 + random.nextInt(63);
        yield random.nextLong() >>> (64 - bits);
      }
      default -> random.nextLong() & Long.MAX_VALUE;
    };
  }

  byte[] bytes() {
    byte[] b = new byte[length()];
    random.nextBytes(b);
    return b;
  }

  String text() {
    int n = length();
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(6)) {
        case 0, 1, 2 -> sb.append((char) (0x20 + random.nextInt(0x5F)));
        case 3 -> sb.appendCodePoint(random.nextInt(0x80)); // includes control characters
        case 4 -> {
          int cp;
          do {
            cp = 0x80 + random.nextInt(0x10000 - 0x80);
          } while (cp >= 0xD800 && cp <= 0xDFFF);
          sb.appendCodePoint(cp);
        }
        default -> sb.appendCodePoint(0x10000 + random.nextInt(0x110000 - 0x10000));
      }
    }
    return sb.toString();
  }

  /** A length, sometimes straddling the 23/24 and 255/256 width boundaries. */
  private int length() {
    return switch (random.nextInt(10)) {
      case 0 -> 22 + random.nextInt(4);
      case 1 -> 250 + random.nextInt(10);
      default -> random.nextInt(12);
    };
  }

  private List<CborValue> items(int depth) {
    int n = random.nextInt(12) == 0 ? 22 + random.nextInt(4) : random.nextInt(5);
    List<CborValue> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      items.add(value(depth + 1));
    }
    return items;
  }

  private CborMap map(int depth) {
    int n = random.nextInt(12) == 0 ? 22 + random.nextInt(4) : random.nextInt(6);
    List<CborMap.Entry> entries = new ArrayList<>(n);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n; i++) {
      CborValue key = key(depth);
      if (seen.add(HexFormat.of().formatHex(key.encode()))) {
        entries.add(new CborMap.Entry(key, value(depth + 1)));
      }
    }
    return CborMap.of(entries);
  }

  private CborValue key(int depth) {
    return switch (random.nextInt(10)) {
      case 0, 1, 2, 3 -> new CborText(random.nextBoolean() ? shortAsciiKey() : text());
      case 4, 5 -> new CborInt(random.nextInt(60) - 30);
      case 6, 7 -> new CborInt(integer());
      case 8 -> CborBytes.of(bytes());
      default -> depth + 1 < maxDepth ? value(depth + 1) : new CborInt(integer());
    };
  }

  /** Short keys collide often, which exercises the duplicate check in the generator itself. */
  private String shortAsciiKey() {
    int n = random.nextInt(4);
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) ('a' + random.nextInt(4)));
    }
    return sb.toString();
  }
}
