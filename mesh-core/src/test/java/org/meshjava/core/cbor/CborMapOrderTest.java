package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The map-key order of RFC 8949 §4.2.1: bytewise order of each key's own encoding. */
class CborMapOrderTest {
  private static final HexFormat HEX = HexFormat.of();

  private static List<String> encodedKeys(CborMap m) {
    return m.entries().stream().map(e -> HEX.formatHex(e.key().encode())).toList();
  }

  /**
   * Asserts that {@code m}'s keys strictly increase by their encodings and that the order is a
   * function of the set of entries, not of the order they were given in.
   */
  private static void assertCanonicalWhateverTheInsertionOrder(
      CborMap m, List<CborMap.Entry> entries, String what) {
    List<byte[]> keys = m.entries().stream().map(e -> e.key().encode()).toList();
    for (int i = 1; i < keys.size(); i++) {
      assertThat(Arrays.compareUnsigned(keys.get(i - 1), keys.get(i)))
          .as("%s keys %s", what, encodedKeys(m))
          .isNegative();
    }
    List<CborMap.Entry> reversed = new ArrayList<>(entries);
    Collections.reverse(reversed);
    assertThat(CborMap.of(reversed)).as(what).isEqualTo(m);
    assertThat(CborMap.of(reversed).encode()).as(what).isEqualTo(m.encode());
  }

  @Test
  void keys_sortByTheirEncodings_asInRfc8949Section4_2_1() {
    // The RFC's own example order (less its `false`): 10, 100, -1, "z", "aa", [100], [-1].
    List<CborValue> keys =
        new ArrayList<>(
            List.of(
                new CborInt(10),
                new CborInt(100),
                new CborInt(-1),
                new CborText("z"),
                new CborText("aa"),
                CborArray.of(new CborInt(100)),
                CborArray.of(new CborInt(-1))));
    List<CborValue> expected = List.copyOf(keys);
    Random random = new Random(7);
    for (int round = 0; round < 50; round++) {
      Collections.shuffle(keys, random);
      CborMap.Builder b = CborMap.builder();
      keys.forEach(k -> b.put(k, new CborInt(0)));
      CborMap m = b.build();
      assertThat(m.entries().stream().map(CborMap.Entry::key).toList())
          .as("order after shuffle %d", round)
          .containsExactlyElementsOf(expected);
    }
  }

  @Test
  void keys_whatTheBytesSay_shorterTextFirst_intsBeforeText_negativesAfterPositives() {
    CborMap m =
        CborMap.builder()
            .put("b", 0)
            .put("aa", 0)
            .put("a", 0)
            .put(-1, new CborInt(0))
            .put(-24, new CborInt(0))
            .put(-25, new CborInt(0))
            .put(23, new CborInt(0))
            .put(24, new CborInt(0))
            .put(0, new CborInt(0))
            .put(CborBytes.of(new byte[] {0}), new CborInt(0))
            .build();
    assertThat(encodedKeys(m))
        .containsExactly(
            "00", // 0
            "17", // 23
            "1818", // 24: a longer head, but 0x18 > 0x17 decides first
            "20", // -1: major type 1 starts at 0x20
            "37", // -24
            "3818", // -25
            "4100", // h'00': major type 2
            "6161", // "a": major type 3
            "6162", // "b"
            "626161"); // "aa": the longer length prefix sorts after every one-byte key
  }

  @Test
  void randomMaps_entriesAreStrictlyIncreasingByEncodedKey() {
    Random random = new Random(0x0DE5L);
    RandomCbor gen = new RandomCbor(random, 3);
    for (int n = 0; n < 2000; n++) {
      List<CborMap.Entry> entries = new ArrayList<>();
      List<String> seen = new ArrayList<>();
      int size = random.nextInt(8);
      for (int i = 0; i < size; i++) {
        CborValue key =
            random.nextBoolean() ? new CborInt(gen.integer()) : new CborText(gen.text());
        String hex = HEX.formatHex(key.encode());
        if (!seen.contains(hex)) {
          seen.add(hex);
          entries.add(new CborMap.Entry(key, new CborInt(i)));
        }
      }
      CborMap m = CborMap.of(entries);
      assertCanonicalWhateverTheInsertionOrder(m, entries, "seed 0x0DE5 case " + n);
    }
  }

  @Test
  void largeMaps_pastWhatIsSortedByInsertion_orderAndRefuseDuplicatesAlike() {
    // CborMap.of sorts small maps (up to 32 keys) one way and larger ones another: both give the
    // same canonical order, whatever the insertion order, and both refuse a repeated key.
    Random random = new Random(0x5EEDL);
    for (int size : new int[] {31, 32, 33, 34, 64, 200}) {
      List<CborMap.Entry> entries = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        CborValue key = i % 2 == 0 ? new CborInt(i * 37L - 500) : new CborText("k" + i * 7);
        entries.add(new CborMap.Entry(key, new CborInt(i)));
      }
      Collections.shuffle(entries, random);
      CborMap m = CborMap.of(entries);
      assertThat(m.size()).as("size %d", size).isEqualTo(size);
      assertCanonicalWhateverTheInsertionOrder(m, entries, "size " + size);
      List<CborMap.Entry> repeated = new ArrayList<>(entries);
      repeated.add(new CborMap.Entry(new CborText("k7"), new CborInt(-1)));
      assertThatThrownBy(() -> CborMap.of(repeated))
          .as("size %d", size)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("duplicate map key " + new CborText("k7"));
    }
  }

  @Test
  void build_whenAKeyRepeats_refusesNamingIt() {
    assertThatThrownBy(() -> CborMap.builder().put("a", 1).put("a", 2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate");
    // Equal keys are equal encodings, whatever Java type built them.
    assertThatThrownBy(
            () ->
                CborMap.builder()
                    .put(1, new CborInt(0))
                    .put(new CborInt(1), new CborInt(0))
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void get_findsByKey_andAsMapKeepsCanonicalOrder() {
    CborMap m = CborMap.builder().put("aa", 1).put("b", 2).put(5, new CborText("x")).build();
    assertThat(m.get("b")).contains(new CborInt(2));
    assertThat(m.get(new CborInt(5))).contains(new CborText("x"));
    assertThat(m.get("zz")).isEmpty();
    assertThat(m.asMap().keySet())
        .containsExactly(new CborInt(5), new CborText("b"), new CborText("aa"));
  }
}
