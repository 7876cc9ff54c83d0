package org.meshjava.core.bytes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ByteValue#hexAscii()} is {@link ByteValue#hex()}'s string as bytes: a served reply's
 * {@code envelope_hex} is written from it, and must read as the hex it always was.
 */
class ByteValueHexAsciiTest {

  /** A byte value of any length (the shipped ones fix or check theirs). */
  private static final class Raw extends ByteValue {
    Raw(byte[] bytes) {
      super(bytes.clone());
    }
  }

  @Test
  void everyByteValue_givesTheDigitsOfItsHexString() {
    byte[] all = new byte[256];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) i;
    }
    Raw value = new Raw(all);

    assertThat(value.hexAscii()).isEqualTo(value.hex().getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void randomValuesOfEveryLengthToTwoEnvelopes_giveTheDigitsOfTheirHexStrings() {
    Random random = new Random(38);
    for (int length = 0; length <= 2_100; length += 1 + random.nextInt(7)) {
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      Raw value = new Raw(bytes);

      assertThat(value.hexAscii())
          .as("length %d", length)
          .isEqualTo(value.hex().getBytes(StandardCharsets.US_ASCII));
    }
  }

  @Test
  void eachCallGivesItsOwnArray_soACallerCannotChangeTheNext() {
    Raw value = new Raw(new byte[] {0x0f, (byte) 0xa0});
    byte[] first = value.hexAscii();
    first[0] = 'x';

    assertThat(new String(value.hexAscii(), StandardCharsets.US_ASCII)).isEqualTo("0fa0");
  }

  @Test
  void aValuePastAGibibyte_isRefusedAsHexRefusesIt_notWithANegativeArraySize() {
    // A real 1 GiB value would cost the suite a gibibyte of heap; the length rule is checked alone.
    assertThat(ByteValue.asciiLength((1 << 30) - 1)).isEqualTo(Integer.MAX_VALUE - 1);
    assertThatThrownBy(() -> ByteValue.asciiLength(1 << 30))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessageContaining("2147483648 digits");
    assertThatThrownBy(() -> ByteValue.asciiLength(Integer.MAX_VALUE))
        .isInstanceOf(OutOfMemoryError.class);
  }
}
