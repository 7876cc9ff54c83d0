package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import org.junit.jupiter.api.Test;

/**
 * CBOR carried inside a byte string is read in place: the view of a byte string cannot change it,
 * and decoding its content follows exactly the rules and limits of decoding the same bytes.
 */
class EmbeddedCborTest {
  @Test
  void aByteStringsView_holdsItsBytes_andCannotChangeThem() {
    CborBytes b = CborBytes.of(new byte[] {1, 2, 3, 4});
    ByteBuffer view = b.asReadOnlyBuffer();
    assertThat(view.isReadOnly()).isTrue();
    assertThat(view.position()).isZero();
    assertThat(view.remaining()).isEqualTo(4);
    byte[] read = new byte[4];
    view.get(read);
    assertThat(read).containsExactly(1, 2, 3, 4);
    assertThatThrownBy(() -> b.asReadOnlyBuffer().put(0, (byte) 9))
        .isInstanceOf(ReadOnlyBufferException.class);
    assertThat(b.bytes()).containsExactly(1, 2, 3, 4);
    // Each view has its own position.
    assertThat(b.asReadOnlyBuffer().position()).isZero();
  }

  @Test
  void embeddedContent_decodesAsTheSameBytes() throws Exception {
    CborValue inner =
        CborMap.builder().put("a", 1).put("bytes", CborBytes.of(new byte[300])).build();
    CborBytes wrapped = CborBytes.of(inner.encode());
    assertThat(CanonicalCbor.decode(wrapped, CborLimits.DEFAULT)).isEqualTo(inner);
    // The byte string is unchanged by being read.
    assertThat(wrapped.bytes()).isEqualTo(inner.encode());
  }

  @Test
  void embeddedContent_isRefusedByTheSameRules_withOffsetsIntoTheContent() {
    // 23 in two bytes (0x18 0x17) where one would do, after the array head: refused at offset 1.
    CborBytes nonShortest = CborBytes.of(new byte[] {(byte) 0x82, 0x18, 0x17, 0x01});
    assertThatThrownBy(() -> CanonicalCbor.decode(nonShortest, CborLimits.DEFAULT))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(CborRule.NON_SHORTEST);
              assertThat(e.offset()).isEqualTo(1);
            });
    CborBytes trailing = CborBytes.of(new byte[] {0x01, 0x02});
    assertThatThrownBy(() -> CanonicalCbor.decode(trailing, CborLimits.DEFAULT))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> assertThat(e.rule()).isEqualTo(CborRule.TRAILING_BYTES));
    CborBytes tooLarge = CborBytes.of(CborBytes.of(new byte[100]).encode());
    assertThatThrownBy(() -> CanonicalCbor.decode(tooLarge, new CborLimits(4, 50, 10)))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> assertThat(e.rule()).isEqualTo(CborRule.INPUT_TOO_LARGE));
  }
}
