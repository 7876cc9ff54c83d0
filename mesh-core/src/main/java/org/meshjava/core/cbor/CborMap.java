package org.meshjava.core.cbor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A CBOR map (major type 5) whose entries are held in canonical order: sorted by the bytewise
 * lexicographic order of each key's own deterministic encoding (RFC 8949 §4.2.1). That order is not
 * the same as sorting text keys as strings: {@code "b"} (0x61 0x62) sorts before {@code "aa"} (0x62
 * 0x61 0x61) because the shorter key has the smaller length prefix.
 *
 * <p>Immutable; duplicate keys are refused at construction.
 */
public final class CborMap implements CborValue {

  /** One map entry. */
  public record Entry(CborValue key, CborValue value) {
    /** Validates the entry. */
    public Entry {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }

  private final List<Entry> entries;

  private CborMap(List<Entry> sortedEntries) {
    this.entries = sortedEntries;
  }

  /**
   * Returns a map of the given entries in canonical order.
   *
   * @throws IllegalArgumentException if two entries have equal keys
   */
  public static CborMap of(List<Entry> entries) {
    int n = entries.size();
    byte[][] keys = new byte[n][];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      keys[i] = entries.get(i).key().encode();
      order[i] = i;
    }
    sortStable(order, keys);
    Entry[] sorted = new Entry[n];
    for (int i = 0; i < n; i++) {
      if (i > 0 && Arrays.equals(keys[order[i - 1]], keys[order[i]])) {
        throw new IllegalArgumentException("duplicate map key " + entries.get(order[i]).key());
      }
      sorted[i] = entries.get(order[i]);
    }
    return new CborMap(Collections.unmodifiableList(Arrays.asList(sorted)));
  }

  /** Maps up to this size, nearly all of them (a receipt's core has 20 keys), sort in place. */
  private static final int SMALL = 32;

  /**
   * Orders {@code order}, indexes into {@code keys}, by the keys' encodings (RFC 8949 §4.2.1),
   * keeping equal keys in the order given, whatever the map's size. Small maps are sorted by
   * insertion over the primitive indexes: sealing a receipt builds a dozen maps (the signed core
   * twice, COSE, the journal record, the request id), and boxing and sorting a list of indexes cost
   * about a tenth of building one.
   */
  private static void sortStable(int[] order, byte[][] keys) {
    if (order.length <= SMALL) {
      for (int i = 1; i < order.length; i++) {
        int o = order[i];
        int j = i - 1;
        while (j >= 0 && Arrays.compareUnsigned(keys[order[j]], keys[o]) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = o;
      }
      return;
    }
    Integer[] boxed = new Integer[order.length];
    for (int i = 0; i < order.length; i++) {
      boxed[i] = order[i];
    }
    Arrays.sort(boxed, (x, y) -> Arrays.compareUnsigned(keys[x], keys[y]));
    for (int i = 0; i < order.length; i++) {
      order[i] = boxed[i];
    }
  }

  /** Entries already known to be in canonical order and free of duplicates (from the decoder). */
  static CborMap ofSorted(List<Entry> sortedEntries) {
    return new CborMap(Collections.unmodifiableList(new ArrayList<>(sortedEntries)));
  }

  /** Returns a builder for a map with text or integer keys. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the entries in canonical order. */
  public List<Entry> entries() {
    return entries;
  }

  /** Returns the number of entries. */
  public int size() {
    return entries.size();
  }

  /** Returns the value under {@code key}, if present. */
  public Optional<CborValue> get(CborValue key) {
    for (Entry e : entries) {
      if (e.key().equals(key)) {
        return Optional.of(e.value());
      }
    }
    return Optional.empty();
  }

  /** Returns the value under the text key {@code key}, if present. */
  public Optional<CborValue> get(String key) {
    return get(new CborText(key));
  }

  /** Returns the entries as an ordered Java map (canonical order). */
  public Map<CborValue, CborValue> asMap() {
    Map<CborValue, CborValue> m = new LinkedHashMap<>();
    for (Entry e : entries) {
      m.put(e.key(), e.value());
    }
    return Collections.unmodifiableMap(m);
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof CborMap other && entries.equals(other.entries);
  }

  /**
   * The hash code, computed once: a map is immutable, and a map decoded once and met again (a grant
   * envelope taken from a {@link CborItemMemo}) is looked up by it on every request.
   */
  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0 && !hashIsZero) {
      h = entries.hashCode();
      if (h == 0) {
        hashIsZero = true;
      } else {
        hash = h;
      }
    }
    return h;
  }

  /** The cached hash code, 0 until computed (as {@link String}'s, a benign race). */
  private int hash;

  private boolean hashIsZero;

  @Override
  public String toString() {
    return "CborMap" + entries;
  }

  /** Collects entries; {@link #build()} sorts them canonically. Not thread-safe. */
  public static final class Builder {
    private final List<Entry> entries = new ArrayList<>();

    private Builder() {}

    /** Adds a text-keyed entry. */
    public Builder put(String key, CborValue value) {
      entries.add(new Entry(new CborText(key), value));
      return this;
    }

    /** Adds a text-keyed unsigned integer entry. */
    public Builder put(String key, long value) {
      return put(key, new CborInt(value));
    }

    /** Adds a text-keyed text entry. */
    public Builder put(String key, String value) {
      return put(key, new CborText(value));
    }

    /** Adds a text-keyed byte-string entry. */
    public Builder put(String key, byte[] value) {
      return put(key, CborBytes.of(value));
    }

    /** Adds an integer-keyed entry. */
    public Builder put(long key, CborValue value) {
      entries.add(new Entry(new CborInt(key), value));
      return this;
    }

    /** Adds an entry with any key. */
    public Builder put(CborValue key, CborValue value) {
      entries.add(new Entry(key, value));
      return this;
    }

    /**
     * Returns the map.
     *
     * @throws IllegalArgumentException if a key was added twice
     */
    public CborMap build() {
      return CborMap.of(entries);
    }
  }
}
