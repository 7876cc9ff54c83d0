package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The u32 and u64 checks of mesh/1's unsigned fields, and the saturating sum of figures. */
class UnsignedTest {

  @Test
  void aValueInRange_isReturnedAsItIs() {
    assertThat(Unsigned.u32("f", 7)).isEqualTo(7);
    assertThat(Unsigned.u32("f", Unsigned.U32_MAX)).isEqualTo(Unsigned.U32_MAX);
    assertThat(Unsigned.u64("f", Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(Unsigned.u64("f", 0)).isZero();
  }

  @Test
  void aValueOutOfRange_isRefusedNamingTheField() {
    assertThatThrownBy(() -> Unsigned.u32("max_tokens", Unsigned.U32_MAX + 1))
        .hasMessage("max_tokens must be a u32 (0..4294967295): 4294967296");
    assertThatThrownBy(() -> Unsigned.u64("joule_ceiling_uj", -1))
        .hasMessage("joule_ceiling_uj must be non-negative: -1");
  }

  @Test
  void aSum_stopsAtTheTopRatherThanWrapping() {
    assertThat(Unsigned.saturatingAdd(2, 3)).isEqualTo(5);
    assertThat(Unsigned.saturatingAdd(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Unsigned.saturatingAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Unsigned.saturatingAdd(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }
}
