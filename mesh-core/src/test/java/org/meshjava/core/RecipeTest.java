package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A composed model's name (§4): base then {@code +adapter} for each adapter, in order. */
class RecipeTest {

  @Test
  void name_isBasePlusAdaptersInOrder() {
    assertThat(Recipe.of("gemma-3-1b").name()).isEqualTo("gemma-3-1b");
    assertThat(Recipe.of("base").with("lora-a").with("merge-b").name())
        .isEqualTo("base+lora-a+merge-b");
    assertThat(Recipe.of("base").with("x")).hasToString("base+x");
  }

  @Test
  void names_thatWouldMakeTheJoinAmbiguous_areRefused() {
    assertThatThrownBy(() -> Recipe.of("a+b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of("base").with("x+y"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of("base").with(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of("bad\nname")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of("bad\u0000")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Recipe.of(null)).isInstanceOf(NullPointerException.class);
  }

  /**
   * The refusal names the refused character by its code point: it once echoed the name as it was,
   * putting the line break or terminal escape it refused into the operator's log line.
   */
  @Test
  void aRefusedName_namesTheCharacter_withoutEchoingIt() {
    assertThatThrownBy(() -> Recipe.of("bad\nname\u001b[2J"))
        .hasMessage(
            "recipe base must be non-empty, without '+' or control characters:"
                + " 'bad<U+000A>name<U+001B>[2J'");
  }

  /**
   * A name holding half of a surrogate pair (cut inside an emoji, or a config's {@code "\\ud83d"})
   * has no UTF-8: it was accepted, and a serve on an engine with that recipe ran, was debited, and
   * then failed sealing its receipt.
   */
  @Test
  void aNameWithAnUnpairedSurrogate_isRefused_aPairIsNot() {
    for (String bad : new String[] {"llama-\ud83d", "\udc00", "a\ude00\ud83db"}) {
      assertThatThrownBy(() -> Recipe.of(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("recipe base holds an unpaired surrogate, which has no UTF-8");
      assertThatThrownBy(() -> Recipe.of("base").with(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("recipe adapter holds an unpaired surrogate, which has no UTF-8");
    }
    assertThat(Recipe.of("llama-\ud83d\ude00").with("ünï").name()).isEqualTo("llama-😀+ünï");
  }

  @Test
  void adapters_areCopied() {
    List<String> adapters = new ArrayList<>(List.of("a"));
    Recipe r = new Recipe("base", adapters);
    adapters.add("b");
    assertThat(r.adapters()).containsExactly("a");
    assertThatThrownBy(() -> r.adapters().add("c"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
