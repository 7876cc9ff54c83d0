package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
