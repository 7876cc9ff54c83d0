package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The value types refuse what cannot be encoded and cannot be changed after construction. */
class CborValueTest {

  @Test
  void bytes_areCopiedInAndOut() {
    byte[] raw = {1, 2, 3};
    CborBytes b = CborBytes.of(raw);
    raw[0] = 9;
    assertThat(b.bytes()).containsExactly(1, 2, 3);
    b.bytes()[1] = 9;
    assertThat(b.bytes()).containsExactly(1, 2, 3);
    assertThat(b.length()).isEqualTo(3);
    assertThat(b).isEqualTo(CborBytes.of(new byte[] {1, 2, 3})).hasToString("h'010203'");
  }

  @Test
  void array_isACopy() {
    List<CborValue> items = new ArrayList<>(List.of(new CborInt(1)));
    CborArray a = new CborArray(items);
    items.add(new CborInt(2));
    assertThat(a.items()).hasSize(1);
    assertThatThrownBy(() -> a.items().add(new CborInt(3)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void text_whenUnpairedSurrogate_refused() {
    assertThatThrownBy(() -> new CborText("a\uD800")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CborText("\uDC00b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CborText("\uD800x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(new CborText("\uD83D\uDE00").encode()).containsExactly(0x64, 0xf0, 0x9f, 0x98, 0x80);
  }

  @Test
  void tag_whenNegative_refused() {
    assertThatThrownBy(() -> new CborTag(-1, new CborInt(0)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void map_entries_areUnmodifiable() {
    CborMap m = CborMap.builder().put("a", 1).build();
    assertThatThrownBy(() -> m.entries().clear()).isInstanceOf(UnsupportedOperationException.class);
  }
}
