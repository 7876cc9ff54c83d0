package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A text string decodes to what the JDK's strict UTF-8 decoder reads from its bytes, or is refused
 * as invalid UTF-8 exactly when that decoder refuses them, whether its bytes are all ASCII (read
 * without a decoder) or not.
 */
class CborTextDecodeTest {
  @Test
  void everyText_decodesAsTheStrictDecoderReadsIt_orIsRefusedWhenItRefuses() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    int refused = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] raw = new byte[random.nextInt(40)];
      for (int j = 0; j < raw.length; j++) {
        // Mostly ASCII, as our texts are; now and then any byte at all.
        raw[j] = (byte) (random.nextInt(6) == 0 ? random.nextInt(256) : random.nextInt(128));
      }
      byte[] encoded = new byte[raw.length + 1];
      encoded[0] = (byte) (0x60 | raw.length);
      if (raw.length >= 24) {
        encoded = new byte[raw.length + 2];
        encoded[0] = 0x78;
        encoded[1] = (byte) raw.length;
      }
      System.arraycopy(raw, 0, encoded, encoded.length - raw.length, raw.length);
      String expected = strict(raw);
      String hex = HexFormat.of().formatHex(encoded);
      try {
        CborValue v = CanonicalCbor.decode(encoded);
        assertThat(v).as("seed %d: %s", seed, hex).isEqualTo(new CborText(expected));
      } catch (CborDecodeException e) {
        assertThat(expected).as("seed %d: %s refused (%s)", seed, hex, e.getMessage()).isNull();
        assertThat(e.rule()).isEqualTo(CborRule.INVALID_UTF8);
        refused++;
      }
    }
    assertThat(refused).as("seed %d: some texts are invalid UTF-8", seed).isPositive();
  }

  /** The JDK's strict reading, or null where it refuses the bytes. */
  private static String strict(byte[] raw) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
