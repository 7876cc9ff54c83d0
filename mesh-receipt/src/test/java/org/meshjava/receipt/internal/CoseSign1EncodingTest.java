package org.meshjava.receipt.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.crypto.SigningKey;

/**
 * {@link CoseSign1} writes its encoding and its {@code Sig_structure} straight into arrays of their
 * exact size; both must be, byte for byte, what the CBOR value model encodes for the same
 * structure, at every length where a byte string's head changes size.
 */
class CoseSign1EncodingTest {
  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);

  /** Byte-string lengths on both sides of each head-size boundary (1, 2, 3, 5 head bytes). */
  static Stream<Integer> lengths() {
    return Stream.of(0, 1, 23, 24, 255, 256, 65_535, 65_536);
  }

  @ParameterizedTest
  @MethodSource("lengths")
  void encodingAndSigStructure_areTheValueModelsBytes_atEveryHeadSize(int length) {
    byte[] payload = bytes(length, 7);
    byte[] header = bytes(Math.min(length, 300), 3);
    for (CborMap unprotected :
        List.of(
            CborMap.of(List.of()),
            CborMap.of(
                List.of(new CborMap.Entry(CborInt.of(4), CborBytes.of(bytes(length % 40, 9))))))) {
      CoseSign1 cose = CoseSign1.sign(header, unprotected, payload, KEY);
      byte[] modelled =
          new CborTag(
                  CoseSign1.TAG,
                  CborArray.of(
                      CborBytes.of(header),
                      unprotected,
                      CborBytes.of(payload),
                      CborBytes.of(cose.signature())))
              .encode();
      assertThat(cose.encode()).isEqualTo(modelled);
      assertThat(CoseSign1.signEncoded(header, unprotected, payload, KEY)).isEqualTo(modelled);
      assertThat(CoseSign1.sigStructure(header, payload))
          .isEqualTo(
              CborArray.of(
                      new CborText("Signature1"),
                      CborBytes.of(header),
                      CborBytes.of(new byte[0]),
                      CborBytes.of(payload))
                  .encode());
    }
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    IntStream.range(0, n).forEach(i -> b[i] = (byte) (i * 31 + seed));
    return b;
  }
}
