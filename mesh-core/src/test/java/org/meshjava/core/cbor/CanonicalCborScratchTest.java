package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link CanonicalCbor#encode} writes into a buffer its thread keeps between calls and copies the
 * result out: each encoding must still be its own value's bytes, whatever the thread encoded before
 * (a larger value, a smaller one), and a virtual thread's the same as a platform thread's.
 */
class CanonicalCborScratchTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void encodingsInARow_onOneThread_areEachTheirOwnBytes() {
    CborValue small = CborArray.of(CborInt.of(1), new CborText("a"));
    CborValue large = CborArray.of(CborBytes.of(new byte[100_000]), CborInt.of(-2));
    assertThat(HEX.formatHex(CanonicalCbor.encode(small))).isEqualTo("82016161");
    byte[] big = CanonicalCbor.encode(large);
    assertThat(big).hasSize(6 + 100_000 + 1);
    assertThat(HEX.formatHex(big, 0, 6)).isEqualTo("825a000186a0");
    assertThat(big[big.length - 1]).isEqualTo((byte) 0x21);
    assertThat(HEX.formatHex(CanonicalCbor.encode(small))).isEqualTo("82016161");
    assertThat(HEX.formatHex(CanonicalCbor.encode(CborArray.of()))).isEqualTo("80");
  }

  @Test
  void aVirtualThreadsEncoding_isAPlatformThreadsBytes() throws InterruptedException {
    List<CborValue> values = new ArrayList<>();
    for (int n : new int[] {0, 23, 24, 255, 256, 2047, 2048, 70_000}) {
      values.add(
          CborMap.of(
              List.of(
                  new CborMap.Entry(new CborText("k"), CborBytes.of(new byte[n])),
                  new CborMap.Entry(CborInt.of(n), new CborText("v" + n)))));
    }
    AtomicReference<List<byte[]>> onVirtual = new AtomicReference<>();
    Thread.ofVirtual()
        .start(() -> onVirtual.set(values.stream().map(CanonicalCbor::encode).toList()))
        .join();
    for (int i = 0; i < values.size(); i++) {
      assertThat(onVirtual.get().get(i)).isEqualTo(CanonicalCbor.encode(values.get(i)));
    }
  }
}
