package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

/**
 * Output ids read as base-36 text, one space between them: the text every reference-engine reply
 * carries, so each id must read exactly as {@code Long.toString(id, 36)} writes it.
 */
class ByteTokenizerTest {

  @Test
  void decode_writesEachIdAsLongToStringInBase36_atEveryDigitCountBoundary() {
    int[] ids = {
      0,
      1,
      9,
      10,
      35,
      36,
      1295,
      1296,
      46_655,
      46_656,
      50_256,
      1_679_615,
      1_679_616,
      60_466_175,
      60_466_176,
      Integer.MAX_VALUE,
      Integer.MIN_VALUE,
      -2,
      -1
    };
    assertThat(ByteTokenizer.INSTANCE.decode(TokenSequence.of(ids))).isEqualTo(expected(ids));
  }

  @Test
  void decode_ofRandomIds_readsAsLongToString() {
    Random random = new Random(0xB36L);
    for (int n = 0; n < 200; n++) {
      int[] ids = random.ints(n % 40).toArray();
      assertThat(ByteTokenizer.INSTANCE.decode(TokenSequence.of(ids))).isEqualTo(expected(ids));
    }
  }

  @Test
  void decode_ofNoIds_isEmpty() {
    assertThat(ByteTokenizer.INSTANCE.decode(TokenSequence.of())).isEmpty();
  }

  /** The ids as unsigned 32-bit values, each in base 36, joined by single spaces. */
  private static String expected(int[] ids) {
    StringJoiner text = new StringJoiner(" ");
    for (int id : ids) {
      text.add(Long.toString(Integer.toUnsignedLong(id), 36));
    }
    return text.toString();
  }
}
