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
