package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Outside text put into an operator's line: each character a reader could take for a line end, a
 * terminal escape or a hidden reordering is named or turned into a space, never passed on as is.
 */
class OperatorTextTest {

  /** Each character that once slipped through, and how a refusal names it. */
  private static final String[][] NAMED = {
    {"\n", "<U+000A>"},
    {"\r", "<U+000D>"},
    {"\t", "<U+0009>"},
    {"\u0085", "<U+0085>"},
    {"\u2028", "<U+2028>"},
    {"\u2029", "<U+2029>"},
    {"\u001b", "<U+001B>"},
    {"\u007f", "<U+007F>"},
    {"\u202e", "<U+202E>"},
    {"\u200b", "<U+200B>"},
    {"\ufeff", "<U+FEFF>"},
    {"\ud83d", "<U+D83D>"},
  };

  @Test
  void named_writesEachRefusedCharacterAsItsCodePoint() {
    for (String[] c : NAMED) {
      assertThat(OperatorText.named("gpu" + c[0] + "a")).isEqualTo("gpu" + c[1] + "a");
    }
  }

  @Test
  void oneLine_turnsEachLineEndIntoASpace_andNamesEveryOtherRefusedCharacter() {
    assertThat(OperatorText.oneLine("a\nb\rc\u000bd\u000ce\u0085f\u2028g\u2029h"))
        .isEqualTo("a b c d e f g h");
    assertThat(OperatorText.oneLine("m\u001b[31m\u202e\u200b\ufeff\t\ud800x"))
        .isEqualTo("m<U+001B>[31m<U+202E><U+200B><U+FEFF><U+0009><U+D800>x");
  }

  @Test
  void textWithNothingRefused_isKeptAsItIs_pairsAndAccentsIncluded() {
    String fine = "modèle-😀 «gpu» 模型";
    assertThat(OperatorText.named(fine)).isSameAs(fine);
    assertThat(OperatorText.oneLine(fine)).isSameAs(fine);
    assertThat(fine.codePoints().anyMatch(OperatorText::refused)).isFalse();
  }

  @Test
  void oneLineCut_keepsAShortLine_andCutsALongOneWithAnEllipsis() {
    assertThat(OperatorText.oneLine("abc\u2028d", 5)).isEqualTo("abc d");
    assertThat(OperatorText.oneLine("abcdef", 5)).isEqualTo("abcde…");
    assertThatThrownBy(() -> OperatorText.oneLine("a", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(OperatorText.oneLine("abc", 1)).isEqualTo("a…"); // 1 is the least allowed
  }

  /**
   * The cut looks back for a name only from before it: a name beginning just past the cut is no
   * reason to keep more than {@code most} characters, and a name at the line's very start is cut
   * out whole like any other.
   */
  @Test
  void oneLineCut_looksForANameOnlyBeforeTheCut_fromTheLinesFirstCharacter() {
    assertThat(OperatorText.oneLine("abcdef\u202e", 5)).isEqualTo("abcde…");
    assertThat(OperatorText.oneLine("\u202exyz", 5)).isEqualTo("…");
  }

  /**
   * Only a name that could still be open at the cut is cut out: text the sender wrote that reads
   * {@code <U+} ten characters or more before the cut is no name this rule wrote (none is longer
   * than ten), and is kept.
   */
  @Test
  void oneLineCut_keepsALiteralNameStart_tenOrMoreCharactersBeforeTheCut() {
    assertThat(OperatorText.oneLine("<U+1234567xy>", 10)).isEqualTo("<U+1234567…");
    assertThat(OperatorText.oneLine("<U+123456xy>", 9)).isEqualTo("…");
  }

  /** Half a pair has no UTF-8: the cut moves before the whole pair. */
  @Test
  void oneLineCut_neverSplitsASurrogatePair() {
    assertThat(OperatorText.oneLine("abcd\uD83D\uDE00x", 5)).isEqualTo("abcd…");
  }

  /**
   * A name cut in two ({@code <U+20}) reads as text the sender wrote: the cut moves before the
   * whole name, while a name ending exactly at the cut is kept.
   */
  @Test
  void oneLineCut_neverSplitsANamedCharacter() {
    for (int most = 4; most < 11; most++) {
      assertThat(OperatorText.oneLine("abc\u202exyz", most)).isEqualTo("abc…");
    }
    assertThat(OperatorText.oneLine("abc\u202exyz", 11)).isEqualTo("abc<U+202E>…");
    // U+E0001, a format character beyond the BMP: a five-digit name.
    assertThat(OperatorText.oneLine("a\uDB40\uDC01bcdef", 9)).isEqualTo("a…");
    assertThat(OperatorText.oneLine("a\uDB40\uDC01bcdef", 10)).isEqualTo("a<U+E0001>…");
  }
}
