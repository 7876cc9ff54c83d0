package org.meshjava.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Base58btc on inputs a {@code did:key} never carries (its bytes start with {@code 0xed}): leading
 * zero bytes, which the alphabet writes as leading {@code '1'}s, and text outside ASCII.
 */
class Base58BtcTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void encode_writesEachLeadingZeroByteAsOne() {
    assertThat(Base58Btc.encode(new byte[0])).isEmpty();
    assertThat(Base58Btc.encode(HEX.parseHex("00"))).isEqualTo("1");
    assertThat(Base58Btc.encode(HEX.parseHex("000000"))).isEqualTo("111");
    assertThat(Base58Btc.encode(HEX.parseHex("0001"))).isEqualTo("12");
    assertThat(Base58Btc.encode(HEX.parseHex("00003a"))).isEqualTo("1121");
    // 58 = "21": a digit that is itself zero inside the number is not a leading zero.
    assertThat(Base58Btc.encode(HEX.parseHex("3a"))).isEqualTo("21");
    assertThat(Base58Btc.encode(HEX.parseHex("0000ff"))).isEqualTo("115Q");
  }

  @Test
  void decode_readsEachLeadingOneAsAZeroByte() {
    assertThat(Base58Btc.decode("")).isEmpty();
    assertThat(Base58Btc.decode("1")).containsExactly(0);
    assertThat(Base58Btc.decode("111")).containsExactly(0, 0, 0);
    assertThat(HEX.formatHex(Base58Btc.decode("1121"))).isEqualTo("00003a");
    assertThat(HEX.formatHex(Base58Btc.decode("115Q"))).isEqualTo("0000ff");
  }

  @Test
  void decode_whenCharacterIsNotAscii_returnsNull() {
    // U+0080 is the first character past the lookup table; U+007F the last one in it.
    assertThat(Base58Btc.decode("2\u0080")).isNull();
    assertThat(Base58Btc.decode("\u007f")).isNull();
    assertThat(Base58Btc.decode("\uffff")).isNull();
  }
}
