package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A text string decodes to the text its bytes spell in UTF-8, or is refused as invalid UTF-8
 * exactly when they are not UTF-8, whether its bytes are all ASCII (read without a decoder) or not.
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

  @Test
  void controlsNoncharactersAndMixedTexts_decodeAsBefore() throws CborDecodeException {
    assertThat(CanonicalCbor.decode(HexFormat.of().parseHex("62007f")))
        .isEqualTo(new CborText("\u0000\u007f"));
    assertThat(CanonicalCbor.decode(HexFormat.of().parseHex("63efbfbf")))
        .isEqualTo(new CborText("\uffff"));
    assertThat(CanonicalCbor.decode(HexFormat.of().parseHex("6361c3a9")))
        .isEqualTo(new CborText("a\u00e9"));
    assertThat(CanonicalCbor.decode(HexFormat.of().parseHex("64f09f9880")))
        .isEqualTo(new CborText("\ud83d\ude00"));
  }

  /**
   * The text the bytes spell, or null where they are not UTF-8: the JDK's lenient reading, which
   * replaces each malformed sequence with U+FFFD, re-encodes to the same bytes exactly when there
   * was none.
   */
  private static String strict(byte[] raw) {
    String lenient = new String(raw, StandardCharsets.UTF_8);
    return Arrays.equals(lenient.getBytes(StandardCharsets.UTF_8), raw) ? lenient : null;
  }
}
