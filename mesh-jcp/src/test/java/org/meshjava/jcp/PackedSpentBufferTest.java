package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;

/**
 * Spent pairs read from a view of a snapshot's section (between the buffer's position and limit)
 * are the pairs read from those bytes as an array: the same checks, a copy of their own, and the
 * buffer left as it was.
 */
class PackedSpentBufferTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  private static byte[] packedPairs(int n) {
    Random rnd = new Random(11);
    List<LedgerState.Spent> pairs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] leaf = new byte[32];
      byte[] nonce = new byte[PresentationNonce.LENGTH];
      rnd.nextBytes(leaf);
      rnd.nextBytes(nonce);
      pairs.add(
          new LedgerState.Spent(
              new GrantId(ContentId.fromDigest(leaf)),
              PresentationNonce.of(nonce),
              T0.plusSeconds(i)));
    }
    return PackedSpent.of(pairs).packed();
  }

  /**
   * {@code packed} copied into {@code around} at {@code at}, as a read-only view of it there: a
   * section inside a larger buffer, as in a snapshot body.
   */
  private static ByteBuffer placed(byte[] packed, byte[] around, int at) {
    System.arraycopy(packed, 0, around, at, packed.length);
    return ByteBuffer.wrap(around, at, packed.length).asReadOnlyBuffer();
  }

  @Test
  void pairsFromAView_areThePairsFromTheBytes_andOwnTheirCopy() {
    byte[] packed = packedPairs(5);
    // The section sits inside a larger buffer, as in a snapshot body.
    byte[] around = new byte[packed.length + 20];
    ByteBuffer view = placed(packed, around, 7);
    PackedSpent fromView = PackedSpent.of(view);
    assertThat(fromView).isEqualTo(PackedSpent.of(packed));
    assertThat(fromView.packed()).isEqualTo(packed);
    assertThat(view.position()).isEqualTo(7);
    assertThat(view.remaining()).isEqualTo(packed.length);
    // Changing the source afterwards changes nothing read from it.
    around[7] ^= 1;
    assertThat(fromView.packed()).isEqualTo(packed);
  }

  @Test
  void aViewThatIsNotWholePairs_orOutOfOrder_isRefused() {
    byte[] packed = packedPairs(3);
    ByteBuffer ragged = ByteBuffer.wrap(packed, 0, packed.length - 1);
    assertThatThrownBy(() -> PackedSpent.of(ragged))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes each");
    byte[] swapped = packed.clone();
    System.arraycopy(packed, 0, swapped, PackedSpent.BYTES, PackedSpent.BYTES);
    System.arraycopy(packed, PackedSpent.BYTES, swapped, 0, PackedSpent.BYTES);
    assertThatThrownBy(() -> PackedSpent.of(ByteBuffer.wrap(swapped)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not after");
  }

  @Test
  void pairsOverAView_areReadInPlace_andLeaveTheBufferAsItWas() {
    byte[] packed = packedPairs(6);
    byte[] around = new byte[packed.length + 20];
    ByteBuffer view = placed(packed, around, 7);
    PackedSpent over = PackedSpent.over(view);
    assertThat(over).isEqualTo(PackedSpent.of(packed));
    assertThat(over.packed()).isEqualTo(packed);
    assertThat(view.position()).isEqualTo(7);
    assertThat(view.remaining()).isEqualTo(packed.length);
    for (int i = 0; i < over.size(); i++) {
      assertThat(over.indexOf(over.get(i).leaf(), over.get(i).nonce())).isEqualTo(i);
    }
    // Read where they lie: a change to the bytes shows (the caller promises none).
    around[7 + PackedSpent.BYTES - 1] ^= 1;
    assertThat(over.packed()).isNotEqualTo(packed);
    assertThatThrownBy(() -> PackedSpent.over(ByteBuffer.wrap(packed, 0, packed.length - 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes each");
  }

  /** A pair of leaf {@code leaf} (all bytes) and nonce {@code nonce}, forgotten at T0. */
  private static LedgerState.Spent pair(int leaf, byte[] nonce) {
    byte[] l = new byte[32];
    java.util.Arrays.fill(l, (byte) leaf);
    return new LedgerState.Spent(
        new GrantId(ContentId.fromDigest(l)), PresentationNonce.of(nonce), T0);
  }

  private static byte[] nonce(int at, int value) {
    byte[] n = new byte[PresentationNonce.LENGTH];
    n[at] = (byte) value;
    return n;
  }

  @Test
  void order_isUnsignedByLeaf_thenSignedByNonce_inEveryEightBytes() {
    // Leaves compare as unsigned bytes (0x80 after 0x7f); nonces as signed bytes (0x80, -128,
    // before 0x7f), in the nonce's first and second eight bytes alike.
    List<LedgerState.Spent> pairs =
        List.of(
            pair(0x80, nonce(0, 0x01)),
            pair(0x7f, nonce(0, 0x7f)),
            pair(0x7f, nonce(0, 0x80)),
            pair(0x7f, nonce(9, 0x80)),
            pair(0x7f, nonce(9, 0x7f)),
            pair(0x7f, nonce(15, 0xff)));
    PackedSpent packed = PackedSpent.of(pairs);
    assertThat(packed)
        .extracting(s -> s.leaf().contentId().bytes()[0], s -> s.nonce().bytes()[0])
        .first()
        .isEqualTo(org.assertj.core.groups.Tuple.tuple((byte) 0x7f, (byte) 0x80));
    byte[] bytes = packed.packed();
    PackedSpent over = PackedSpent.over(ByteBuffer.wrap(bytes));
    assertThat(over).containsExactlyElementsOf(packed);
    for (LedgerState.Spent s : pairs) {
      assertThat(over.indexOf(s.leaf(), s.nonce())).isNotNegative();
    }
    assertThat(over.indexOf(pair(0x7f, nonce(9, 0x01)).leaf(), nonce9(0x01))).isEqualTo(-1);
    // Each neighbouring pair swapped is out of order.
    for (int i = 1; i < pairs.size(); i++) {
      byte[] swapped = bytes.clone();
      System.arraycopy(bytes, (i - 1) * PackedSpent.BYTES, swapped, i * PackedSpent.BYTES, 48);
      System.arraycopy(bytes, i * PackedSpent.BYTES, swapped, (i - 1) * PackedSpent.BYTES, 48);
      assertThatThrownBy(() -> PackedSpent.over(ByteBuffer.wrap(swapped)))
          .as("pairs %d and %d swapped", i - 1, i)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not after");
    }
  }

  private static PresentationNonce nonce9(int value) {
    return PresentationNonce.of(nonce(9, value));
  }
}
