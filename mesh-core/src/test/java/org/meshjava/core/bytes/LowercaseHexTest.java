package org.meshjava.core.bytes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The one reader of hex text: lowercase digits, an even number, nothing else. */
class LowercaseHexTest {
  @Test
  void lowercaseDigits_decodeToTheirBytes() {
    assertThat(LowercaseHex.decode("")).isEmpty();
    assertThat(LowercaseHex.decode("00ff7fa0"))
        .containsExactly((byte) 0x00, (byte) 0xff, (byte) 0x7f, (byte) 0xa0);
    assertThat(LowercaseHex.decode("0123456789abcdef"))
        .containsExactly(
            (byte) 0x01,
            (byte) 0x23,
            (byte) 0x45,
            (byte) 0x67,
            (byte) 0x89,
            (byte) 0xab,
            (byte) 0xcd,
            (byte) 0xef);
  }

  @Test
  void upperCase_isRefused_namingTheCharacterAndWhereItIs_andWhatToDo() {
    assertThatThrownBy(() -> LowercaseHex.decode("00fF"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not lowercase hex: upper-case 'F' at index 3 (write it in lower case)");
  }

  @Test
  void anythingElse_isRefused_namingTheFirstBadCharacter() {
    assertThatThrownBy(() -> LowercaseHex.decode("0g"))
        .hasMessage("not lowercase hex: 'g' at index 1");
    assertThatThrownBy(() -> LowercaseHex.decode("0x00"))
        .hasMessage("not lowercase hex: 'x' at index 1");
    assertThatThrownBy(() -> LowercaseHex.decode(" 00"))
        .hasMessage("not lowercase hex: U+0020 at index 0");
    assertThatThrownBy(() -> LowercaseHex.decode("0\u0663"))
        .hasMessage("not lowercase hex: U+0663 at index 1");
    assertThatThrownBy(() -> LowercaseHex.decode("abc"))
        .hasMessage("not lowercase hex: 3 digits, an odd number (two make a byte)");
  }

  @Test
  void onlyPrintableAscii_isQuoted_theControlCharactersAtEitherEndAreNamedByCodePoint() {
    // '~' (0x7e) is the last printable ASCII character; DEL (0x7f) quoted would print nothing
    // a reader can see, like the space before '!'.
    assertThatThrownBy(() -> LowercaseHex.decode("0~"))
        .hasMessage("not lowercase hex: '~' at index 1");
    assertThatThrownBy(() -> LowercaseHex.decode("0\u007f"))
        .hasMessage("not lowercase hex: U+007F at index 1");
    assertThatThrownBy(() -> LowercaseHex.decode("!0"))
        .hasMessage("not lowercase hex: '!' at index 0");
  }

  @Test
  void onlyTheUpperCaseHexDigits_areToldToBeWrittenInLowerCase() {
    // 'F' is the last upper-case digit; 'G' is no digit in either case, so no advice to lower it.
    assertThatThrownBy(() -> LowercaseHex.decode("0F"))
        .hasMessage("not lowercase hex: upper-case 'F' at index 1 (write it in lower case)");
    assertThatThrownBy(() -> LowercaseHex.decode("0G"))
        .hasMessage("not lowercase hex: 'G' at index 1");
  }

  @Test
  void noText_isRefusedNamingTheArgument() {
    assertThatThrownBy(() -> LowercaseHex.decode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("text");
  }

  @Test
  void aBadCharacter_isNamedBeforeAnOddLength_whereverEachFaultLies() {
    assertThatThrownBy(() -> LowercaseHex.decode("abg"))
        .hasMessage("not lowercase hex: 'g' at index 2");
    assertThatThrownBy(() -> LowercaseHex.decode("Aab"))
        .hasMessage("not lowercase hex: upper-case 'A' at index 0 (write it in lower case)");
    assertThatThrownBy(() -> LowercaseHex.decode("a"))
        .hasMessage("not lowercase hex: 1 digits, an odd number (two make a byte)");
    assertThatThrownBy(() -> LowercaseHex.decode("00\ud83d\ude00"))
        .hasMessage("not lowercase hex: U+D83D at index 2");
  }

  @Test
  void randomText_decodesAsHexFormatReadsIt_exactlyWhenItIsEvenLowercaseHex() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    String alphabet = "0123456789abcdef";
    String strangers = "AFGgx -\u0663\u00e9/:@`{";
    for (int i = 0; i < 2_000; i++) {
      StringBuilder b = new StringBuilder();
      for (int j = random.nextInt(20); j > 0; j--) {
        b.append(
            random.nextInt(30) == 0
                ? strangers.charAt(random.nextInt(strangers.length()))
                : alphabet.charAt(random.nextInt(16)));
      }
      String text = b.toString();
      boolean hex = text.length() % 2 == 0 && text.chars().allMatch(c -> alphabet.indexOf(c) >= 0);
      if (hex) {
        assertThat(LowercaseHex.decode(text))
            .as("seed %d: %s", seed, text)
            .isEqualTo(HexFormat.of().parseHex(text));
      } else {
        assertThatThrownBy(() -> LowercaseHex.decode(text))
            .as("seed %d: %s", seed, text)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("not lowercase hex: ");
      }
    }
  }
}
