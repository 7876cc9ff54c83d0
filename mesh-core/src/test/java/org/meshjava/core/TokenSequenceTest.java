package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Token ids as unsigned 32-bit values and their little-endian byte form (§6.4). */
class TokenSequenceTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void littleEndian_isLeastSignificantByteFirst() {
    TokenSequence t = TokenSequence.of(1, 0x01020304, 0);
    assertThat(HEX.formatHex(t.toLittleEndian())).isEqualTo("01000000" + "04030201" + "00000000");
  }

  @Test
  void idsAbove2To31_areUnsigned() {
    TokenSequence t = TokenSequence.of(-1, Integer.MIN_VALUE);
    assertThat(t.get(0)).isEqualTo(4_294_967_295L);
    assertThat(t.get(1)).isEqualTo(2_147_483_648L);
    assertThat(HEX.formatHex(t.toLittleEndian())).isEqualTo("ffffffff" + "00000080");
  }

  @Test
  void littleEndian_roundTrips() {
    Random random = new Random(0x70C3L);
    for (int n = 0; n < 1000; n++) {
      int[] ids = random.ints(random.nextInt(50)).toArray();
      TokenSequence t = TokenSequence.of(ids);
      TokenSequence back = TokenSequence.fromLittleEndian(t.toLittleEndian());
      assertThat(back).as("seed 0x70C3 case %d", n).isEqualTo(t).hasSameHashCodeAs(t);
      assertThat(back.toArray()).isEqualTo(ids);
      assertThat(t.toLittleEndian()).hasSize(4 * ids.length);
    }
  }

  @Test
  void fromLittleEndian_whenNotAWholeNumberOfU32s_refuses() {
    for (int len : new int[] {1, 2, 3, 5, 7}) {
      assertThatThrownBy(() -> TokenSequence.fromLittleEndian(new byte[len]))
          .as("%d bytes", len)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(TokenSequence.fromLittleEndian(new byte[0])).isEqualTo(TokenSequence.empty());
  }

  @Test
  void ids_areCopiedInAndOut() {
    int[] ids = {1, 2};
    TokenSequence t = TokenSequence.of(ids);
    ids[0] = 9;
    t.toArray()[1] = 9;
    assertThat(t.toArray()).containsExactly(1, 2);
    assertThat(t.size()).isEqualTo(2);
    assertThat(TokenSequence.of()).isSameAs(TokenSequence.empty());
  }
}
