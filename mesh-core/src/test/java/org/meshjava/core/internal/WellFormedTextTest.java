package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.cbor.CborText;

/**
 * The one unpaired-surrogate rule: the index it names, its code-point form, and the callers that
 * refuse by it (canonical CBOR text, a recipe's names, a prompt's text), each in its own words.
 */
class WellFormedTextTest {

  private static final String[] UNPAIRED = {"gpu-\ud83d", "a\ud800b", "\udc00x", "x\ude00\ud83d"};

  @Test
  void unpairedSurrogate_isTheFirstLoneHalf_highOrLow_andMinusOneForWellFormedText() {
    assertThat(WellFormedText.unpairedSurrogate("")).isEqualTo(-1);
    assertThat(WellFormedText.unpairedSurrogate("ünï☃-中-\ud83d\ude00")).isEqualTo(-1);
    assertThat(WellFormedText.unpairedSurrogate("ab\ud800c")).isEqualTo(2);
    assertThat(WellFormedText.unpairedSurrogate("a\ud83d\ude00\udc00")).isEqualTo(3);
    assertThat(WellFormedText.unpairedSurrogate("\ud83d\ud83d\ude00")).isZero();
    assertThat(WellFormedText.unpairedSurrogate("x\ud83d")).isEqualTo(1);
  }

  @Test
  void theCodePointForm_agreesWithTheIndexForm() {
    for (String s :
        new String[] {
          "", "a", "\ud83d\ude00", "gpu-\ud83d", "a\ud800b", "\udc00x", "x\ude00\ud83d"
        }) {
      assertThat(s.codePoints().anyMatch(WellFormedText::isUnpairedSurrogate))
          .as("%s", s.chars().mapToObj(Integer::toHexString).toList())
          .isEqualTo(WellFormedText.unpairedSurrogate(s) >= 0);
    }
    assertThat(WellFormedText.isUnpairedSurrogate(0x1F600)).isFalse();
    assertThat(WellFormedText.isUnpairedSurrogate(0xD7FF)).isFalse();
    assertThat(WellFormedText.isUnpairedSurrogate(0xE000)).isFalse();
    // Both ends of the surrogate range are surrogates.
    assertThat(WellFormedText.isUnpairedSurrogate(0xD800)).isTrue();
    assertThat(WellFormedText.isUnpairedSurrogate(0xDFFF)).isTrue();
  }

  @Test
  void cborTextRecipeAndPrompt_refuseExactlyWhatTheRuleRefuses_eachInItsOwnWords() {
    for (String bad : UNPAIRED) {
      assertThatThrownBy(() -> CborText.of(bad))
          .hasMessage(
              "text has an unpaired surrogate at index " + WellFormedText.unpairedSurrogate(bad));
      assertThatThrownBy(() -> Recipe.of(bad))
          .hasMessage("recipe base holds an unpaired surrogate, which has no UTF-8");
      assertThatThrownBy(() -> PromptText.of(bad))
          .hasMessage("the prompt text holds an unpaired surrogate");
    }
    assertThat(CborText.of("\ud83d\ude00").value()).isEqualTo("\ud83d\ude00");
    assertThat(Recipe.of("m-\ud83d\ude00").name()).isEqualTo("m-\ud83d\ude00");
    assertThat(PromptText.of("\ud83d\ude00").bytes())
        .isEqualTo(new byte[] {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80});
  }
}
