package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Boundaries that mutation testing (issue 21 item 4) found unchecked: the shortest head for a zero
 * argument, the depth of map keys and map values, and map equality.
 */
class CanonicalCborBoundaryTest {
  private static final HexFormat HEX = HexFormat.of();

  private static CborLimits depth(int maxDepth) {
    return new CborLimits(maxDepth, 1 << 20, 1 << 20);
  }

  @Test
  void encode_aLoneIntegerOrText_isTheSameBytesItHasInsideAnArray() {
    // A lone integer or text is encoded into an array of exactly its size (map keys, to order
    // them); inside an array it goes through the growable buffer. Both must give the same bytes at
    // every head-size boundary.
    List<CborValue> values = new ArrayList<>();
    for (long v :
        new long[] {
          0,
          23,
          24,
          255,
          256,
          65_535,
          65_536,
          0xFFFF_FFFFL,
          0x1_0000_0000L,
          Long.MAX_VALUE,
          -1,
          -24,
          -25,
          -256,
          -257,
          -65_536,
          -65_537,
          -0x1_0000_0000L,
          -0x1_0000_0001L,
          Long.MIN_VALUE
        }) {
      values.add(new CborInt(v));
    }
    for (int length : new int[] {0, 1, 23, 24, 255, 256, 65_535, 65_536}) {
      values.add(new CborText("a".repeat(length)));
    }
    values.add(new CborText("\u00e9\u4e2d\ud83d\ude00"));
    for (CborValue v : values) {
      byte[] inArray = CborArray.of(v).encode();
      assertThat(v.encode()).as("%s", v).isEqualTo(Arrays.copyOfRange(inArray, 1, inArray.length));
    }
  }

  @Test
  void encode_zeroArguments_takeTheOneByteHead() {
    assertThat(HEX.formatHex(CanonicalCbor.encode(CborInt.of(0)))).isEqualTo("00");
    assertThat(HEX.formatHex(CanonicalCbor.encode(CborArray.of()))).isEqualTo("80");
    assertThat(HEX.formatHex(CanonicalCbor.encode(CborText.of("")))).isEqualTo("60");
    assertThat(HEX.formatHex(CanonicalCbor.encode(CborInt.of(-1)))).isEqualTo("20");
  }

  @Test
  void decode_mapValues_countTowardTheDepth() throws Exception {
    byte[] nested = HEX.parseHex("a100a10000"); // {0: {0: 0}}: the inner 0s are level 3
    assertThat(CanonicalCbor.decode(nested, depth(3))).isInstanceOf(CborMap.class);
    assertThatThrownBy(() -> CanonicalCbor.decode(nested, depth(2)))
        .isInstanceOfSatisfying(
            CborDecodeException.class, e -> assertThat(e.rule()).isEqualTo(CborRule.TOO_DEEP));
  }

  @Test
  void decode_mapKeys_countTowardTheDepth() throws Exception {
    byte[] nested = HEX.parseHex("a1a1000000"); // {{0: 0}: 0}: the key's 0s are level 3
    assertThat(CanonicalCbor.decode(nested, depth(3))).isInstanceOf(CborMap.class);
    assertThatThrownBy(() -> CanonicalCbor.decode(nested, depth(2)))
        .isInstanceOfSatisfying(
            CborDecodeException.class, e -> assertThat(e.rule()).isEqualTo(CborRule.TOO_DEEP));
  }

  @Test
  void maps_withTheSameKeysButOtherValues_areNotEqual() {
    CborMap a = CborMap.of(List.of(new CborMap.Entry(CborText.of("k"), CborInt.of(1))));
    CborMap b = CborMap.of(List.of(new CborMap.Entry(CborText.of("k"), CborInt.of(2))));
    CborMap a2 = CborMap.of(List.of(new CborMap.Entry(CborText.of("k"), CborInt.of(1))));
    assertThat(a).isNotEqualTo(b).isEqualTo(a2).hasSameHashCodeAs(a2);
    assertThat(a).isNotEqualTo(CborText.of("k"));
  }

  @Test
  void decode_whenAMapDeclaresMoreEntriesThanHalfTheRemainingBytes_refusesAsLengthLimit()
      throws Exception {
    // Each entry takes at least two bytes (a key and a value), so the count is refused up front.
    for (String hex : new String[] {"a2010203", "a3010203"}) {
      assertThatThrownBy(() -> CanonicalCbor.decode(HEX.parseHex(hex)))
          .as(hex)
          .isInstanceOfSatisfying(
              CborDecodeException.class,
              e -> {
                assertThat(e.rule()).isEqualTo(CborRule.LENGTH_LIMIT);
                assertThat(e.offset()).isZero();
              });
    }
    assertThat(CanonicalCbor.decode(HEX.parseHex("a10102")))
        .isEqualTo(CborMap.of(List.of(new CborMap.Entry(CborInt.of(1), CborInt.of(2)))));
  }

  @Test
  void limits_ofOne_areTheSmallestAccepted() throws Exception {
    CborLimits one = new CborLimits(1, 1, 1);
    assertThat(CanonicalCbor.decode(HEX.parseHex("17"), one)).isEqualTo(CborInt.of(23));
    for (int[] bad : new int[][] {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}) {
      assertThatThrownBy(() -> new CborLimits(bad[0], bad[1], bad[2]))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void byteStrings_withOtherContent_areNotEqual() {
    CborBytes a = CborBytes.of(new byte[] {1, 2});
    assertThat(a)
        .isEqualTo(CborBytes.of(new byte[] {1, 2}))
        .hasSameHashCodeAs(CborBytes.of(new byte[] {1, 2}))
        .isNotEqualTo(CborBytes.of(new byte[] {1, 3}))
        .isNotEqualTo(CborBytes.of(new byte[] {1}))
        .isNotEqualTo(CborText.of("\u0001\u0002"));
  }

  @Test
  void mapBuilder_byteStringEntries_chain() {
    CborMap m = CborMap.builder().put("b", new byte[] {7}).put("a", new byte[0]).build();
    assertThat(HEX.formatHex(m.encode())).isEqualTo("a2616140616241" + "07");
  }
}
