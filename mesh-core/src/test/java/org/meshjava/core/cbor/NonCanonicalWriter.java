package org.meshjava.core.cbor;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An independent test-side CBOR writer that encodes a value canonically except for exactly one
 * deliberate violation, and reports where in the output that violation starts. The decoder must
 * reject every such variant with the matching {@link CborRule} at that offset.
 *
 * <p>Heads are numbered in the order they are written (every integer, string, array, map and tag
 * has one head); maps are numbered in the order their heads are written.
 */
final class NonCanonicalWriter {

  /** The single violation to commit. */
  sealed interface Violation {}

  /** Writes head number {@code head} with its argument in {@code width} bytes (1, 2, 4 or 8). */
  record Widen(int head, int width) implements Violation {}

  /** Writes head number {@code head} (a string, array or map) in indefinite-length form. */
  record Indefinite(int head) implements Violation {}

  /** Writes entries {@code i} and {@code i+1} of map number {@code map} in swapped order. */
  record SwapEntries(int map, int i) implements Violation {}

  /** Writes entry {@code i+1} of map number {@code map} under the key of entry {@code i}. */
  record DuplicateKey(int map, int i) implements Violation {}

  /** The variant bytes and the offset at which the decoder must notice the violation. */
  record Variant(byte[] bytes, int offset) {}

  private final Violation violation;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private int heads;
  private int maps;
  private int offset = -1;

  private NonCanonicalWriter(Violation violation) {
    this.violation = violation;
  }

  /** Returns the variant, or empty when the violation does not apply to this value. */
  static Optional<Variant> write(CborValue value, Violation violation) {
    NonCanonicalWriter w = new NonCanonicalWriter(violation);
    w.value(value);
    return w.offset < 0
        ? Optional.empty()
        : Optional.of(new Variant(w.out.toByteArray(), w.offset));
  }

  /** Returns the test writer's own canonical encoding: a violation that targets nothing. */
  static byte[] canonical(CborValue value) {
    NonCanonicalWriter w = new NonCanonicalWriter(new Widen(-1, 1));
    w.value(value);
    return w.out.toByteArray();
  }

  /** Counts the heads and maps in {@code value}, so callers can enumerate every violation. */
  static int[] countHeadsAndMaps(CborValue value) {
    NonCanonicalWriter w = new NonCanonicalWriter(new Widen(-1, 1));
    w.value(value);
    return new int[] {w.heads, w.maps};
  }

  /** Returns the entry count of every map, in map order. */
  static List<Integer> mapSizes(CborValue value) {
    List<Integer> sizes = new ArrayList<>();
    collectMapSizes(value, sizes);
    return sizes;
  }

  private static void collectMapSizes(CborValue value, List<Integer> sizes) {
    switch (value) {
      case CborArray a -> a.items().forEach(i -> collectMapSizes(i, sizes));
      case CborMap m -> {
        sizes.add(m.size());
        for (CborMap.Entry e : m.entries()) {
          collectMapSizes(e.key(), sizes);
          collectMapSizes(e.value(), sizes);
        }
      }
      case CborTag t -> collectMapSizes(t.content(), sizes);
      default -> {}
    }
  }

  private void value(CborValue value) {
    switch (value) {
      case CborInt i -> {
        long v = i.value();
        head(v >= 0 ? 0 : 1, v >= 0 ? v : -1 - v, false);
      }
      case CborBytes b -> string(2, b.bytes());
      case CborText t -> string(3, t.value().getBytes(StandardCharsets.UTF_8));
      case CborArray a -> {
        boolean indefinite = head(4, a.items().size(), true);
        a.items().forEach(this::value);
        if (indefinite) {
          out.write(0xFF);
        }
      }
      case CborMap m -> map(m);
      case CborTag t -> {
        head(6, t.tag(), false);
        value(t.content());
      }
    }
  }

  private void string(int major, byte[] raw) {
    int number = heads;
    if (violation instanceof Indefinite ind && ind.head() == number) {
      heads++;
      offset = out.size();
      out.write(major << 5 | 31);
      // The content as one definite chunk (none when empty), then the break.
      if (raw.length > 0) {
        canonicalHead(major, raw.length);
        out.writeBytes(raw);
      }
      out.write(0xFF);
      return;
    }
    head(major, raw.length, false);
    out.writeBytes(raw);
  }

  private void map(CborMap m) {
    int mapNumber = maps++;
    List<CborMap.Entry> entries = new ArrayList<>(m.entries());
    int markEntry = -1;
    if (violation instanceof SwapEntries s && s.map() == mapNumber && s.i() + 1 < entries.size()) {
      CborMap.Entry a = entries.get(s.i());
      entries.set(s.i(), entries.get(s.i() + 1));
      entries.set(s.i() + 1, a);
      markEntry = s.i() + 1;
    }
    if (violation instanceof DuplicateKey d && d.map() == mapNumber && d.i() + 1 < entries.size()) {
      CborMap.Entry next = entries.get(d.i() + 1);
      entries.set(d.i() + 1, new CborMap.Entry(entries.get(d.i()).key(), next.value()));
      markEntry = d.i() + 1;
    }
    boolean indefinite = head(5, entries.size(), true);
    for (int i = 0; i < entries.size(); i++) {
      if (i == markEntry) {
        offset = out.size();
      }
      value(entries.get(i).key());
      value(entries.get(i).value());
    }
    if (indefinite) {
      out.write(0xFF);
    }
  }

  /**
   * Writes a head, committing the violation if it targets this head. Returns whether the head was
   * written in indefinite form (the caller then writes the content and a break).
   */
  private boolean head(int major, long arg, boolean mayBeIndefinite) {
    int number = heads++;
    int start = out.size();
    if (violation instanceof Indefinite ind && ind.head() == number && mayBeIndefinite) {
      offset = start;
      out.write(major << 5 | 31);
      return true;
    }
    if (violation instanceof Widen w && w.head() == number && w.width() > canonicalWidth(arg)) {
      offset = start;
      out.write(major << 5 | infoForWidth(w.width()));
      for (int s = 8 * (w.width() - 1); s >= 0; s -= 8) {
        out.write((int) (arg >>> s));
      }
      return false;
    }
    canonicalHead(major, arg);
    return false;
  }

  private void canonicalHead(int major, long arg) {
    int width = canonicalWidth(arg);
    if (width == 0) {
      out.write(major << 5 | (int) arg);
      return;
    }
    out.write(major << 5 | infoForWidth(width));
    for (int s = 8 * (width - 1); s >= 0; s -= 8) {
      out.write((int) (arg >>> s));
    }
  }

  static int canonicalWidth(long arg) {
    if (arg < 24) {
      return 0;
    }
    if (arg <= 0xFF) {
      return 1;
    }
    if (arg <= 0xFFFF) {
      return 2;
    }
    if (arg <= 0xFFFF_FFFFL) {
      return 4;
    }
    return 8;
  }

  private static int infoForWidth(int width) {
    return switch (width) {
      case 1 -> 24;
      case 2 -> 25;
      case 4 -> 26;
      default -> 27;
    };
  }
}
