package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class CanonicalCborTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void mapKeys_sortByEncodedBytes_notByStringOrder() {
    CborMap m = CborMap.builder().put("aa", 1).put("b", 2).build();
    // "b" encodes as 61 62, "aa" as 62 61 61: the shorter key sorts first.
    assertThat(HEX.formatHex(m.encode())).isEqualTo("a261620262616101");
  }

  @Test
  void decode_rejectsNonShortestInteger() {
    assertThatThrownBy(() -> CanonicalCbor.decode(HEX.parseHex("1817")))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(CborRule.NON_SHORTEST);
              assertThat(e.offset()).isZero();
            });
  }
}
