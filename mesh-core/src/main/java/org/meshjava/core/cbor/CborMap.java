package org.meshjava.core.cbor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
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

  private static final Comparator<byte[]> BYTEWISE = Arrays::compareUnsigned;

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
    List<byte[]> keys = new ArrayList<>(entries.size());
    List<Integer> order = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      keys.add(entries.get(i).key().encode());
      order.add(i);
    }
    order.sort((a, b) -> BYTEWISE.compare(keys.get(a), keys.get(b)));
    List<Entry> sorted = new ArrayList<>(entries.size());
    for (int i = 0; i < order.size(); i++) {
      if (i > 0 && Arrays.equals(keys.get(order.get(i - 1)), keys.get(order.get(i)))) {
        throw new IllegalArgumentException("duplicate map key " + entries.get(order.get(i)).key());
      }
      sorted.add(entries.get(order.get(i)));
    }
    return new CborMap(Collections.unmodifiableList(sorted));
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
    return o instanceof CborMap other && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

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
