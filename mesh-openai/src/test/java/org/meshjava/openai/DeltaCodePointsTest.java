package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.TokenSequence;

/** {@link DeltaCodePoints}: an upstream's deltas gathered into the code points of the whole. */
class DeltaCodePointsTest {

  @Test
  void anEmptyDelta_addsNothing() {
    DeltaCodePoints d = new DeltaCodePoints();
    assertThat(d.add("")).isEqualTo(TokenSequence.empty());
    assertThat(d.finish()).isEqualTo(TokenSequence.empty());
    assertThat(d.all()).isEqualTo(TokenSequence.empty());
  }

  @Test
  void aReplyLongerThanTheFirstBuffer_keepsEveryCodePointInOrder() {
    DeltaCodePoints d = new DeltaCodePoints();
    String first = "a".repeat(200);
    String second = "b".repeat(200);
    assertThat(d.add(first).size()).isEqualTo(200);
    assertThat(d.add(second).size()).isEqualTo(200);
    assertThat(d.add("c".repeat(1000)).size()).isEqualTo(1000);
    assertThat(d.all())
        .isEqualTo(TokenSequence.of((first + second + "c".repeat(1000)).codePoints().toArray()));
  }

  @Test
  void aPairSplitAcrossDeltas_isOneCodePoint_andAHalfLeftAtTheEndIsItsOwn() {
    DeltaCodePoints d = new DeltaCodePoints();
    assertThat(d.add("x\uD83D")).isEqualTo(TokenSequence.of('x'));
    assertThat(d.add("\uDE00y")).isEqualTo(TokenSequence.of(0x1F600, 'y'));
    assertThat(d.add("\uD83D")).isEqualTo(TokenSequence.empty());
    assertThat(d.finish()).isEqualTo(TokenSequence.of(0xD83D));
    assertThat(d.all()).isEqualTo(TokenSequence.of('x', 0x1F600, 'y', 0xD83D));
  }
}
