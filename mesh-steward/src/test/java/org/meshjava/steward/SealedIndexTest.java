package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.meshjava.core.ContentId;
import org.junit.jupiter.api.Test;

class SealedIndexTest {
  private static ContentId id(long i) {
    return ContentId.ofBytes(Long.toString(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  @Test
  void holdsIdsPutOutOfOrder_acrossChunks_andNothingElse() {
    SealedIndex index = new SealedIndex(Map.of(7L, id(7)));
    for (long s = 10_000; s >= 8; s--) {
      index.put(s, id(s));
    }
    assertThat(index.get(7)).contains(id(7));
    assertThat(index.get(4_103)).contains(id(4_103));
    assertThat(index.get(10_000)).contains(id(10_000));
    assertThat(index.get(6)).isEmpty();
    assertThat(index.get(10_001)).isEmpty();
    assertThat(index.get(1_000_000)).isEmpty();
  }

  @Test
  void aGapIsNotHeld() {
    SealedIndex index = new SealedIndex(Map.of());
    index.put(0, id(0));
    index.put(2, id(2));
    assertThat(index.get(1)).isEmpty();
    assertThat(index.get(2)).contains(id(2));
  }
}
