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

  @Test
  void pairsFromAView_areThePairsFromTheBytes_andOwnTheirCopy() {
    byte[] packed = packedPairs(5);
    // The section sits inside a larger buffer, as in a snapshot body.
    byte[] around = new byte[packed.length + 20];
    System.arraycopy(packed, 0, around, 7, packed.length);
    ByteBuffer view = ByteBuffer.wrap(around, 7, packed.length).asReadOnlyBuffer();
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
}
