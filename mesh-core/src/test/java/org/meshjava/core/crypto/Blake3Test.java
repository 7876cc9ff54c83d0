package org.meshjava.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

/** The parts of {@link Blake3} the official vectors do not reach. */
class Blake3Test {

  @Test
  void keyedHasher_whenKeyIsNot32Bytes_refuses() {
    assertThatThrownBy(() -> Blake3.newKeyedHasher(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Blake3.newKeyedHasher(new byte[33]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keyedHasher_copiesTheKey() {
    byte[] key = new byte[32];
    Blake3.Hasher h = Blake3.newKeyedHasher(key);
    key[0] = 1;
    assertThat(h.update(new byte[] {5}).finish())
        .isEqualTo(Blake3.keyedHash(new byte[32], new byte[] {5}));
  }

  @Test
  void streamUpdate_equalsOneShot_acrossBufferBoundaries() throws Exception {
    byte[] in = Blake3VectorsTest.input(200_000); // several 64 KiB reads
    assertThat(Blake3.newHasher().update(new ByteArrayInputStream(in)).finish())
        .isEqualTo(Blake3.hash(in));
  }

  @Test
  void deriveKey_dependsOnTheContext() {
    byte[] material = {1, 2, 3};
    assertThat(Blake3.deriveKey("mesh/1 a", material))
        .isNotEqualTo(Blake3.deriveKey("mesh/1 b", material))
        .hasSize(32);
  }

  /**
   * {@link Blake3#hash(byte[]...)} takes a one-chunk shortcut up to 1024 bytes: against
   * BouncyCastle at every length to two chunks, the input cut into three parts at varying places.
   */
  @Test
  void hashOfParts_matchesBouncyCastle_atEveryLengthToTwoChunks() {
    byte[] in = Blake3VectorsTest.input(2048);
    for (int len = 0; len <= 2048; len++) {
      int a = len / 3;
      int b = (len * 7) / 11;
      byte[] ours =
          Blake3.hash(
              java.util.Arrays.copyOfRange(in, 0, a),
              java.util.Arrays.copyOfRange(in, a, b),
              java.util.Arrays.copyOfRange(in, b, len));
      org.bouncycastle.crypto.digests.Blake3Digest d =
          new org.bouncycastle.crypto.digests.Blake3Digest(256);
      d.update(in, 0, len);
      byte[] theirs = new byte[32];
      d.doFinal(theirs, 0);
      assertThat(ours).as("length %d", len).isEqualTo(theirs);
    }
  }

  /** {@link Blake3#rehash} is the loop it replaces, checked against BouncyCastle round by round. */
  @Test
  void rehash_equalsHashingAgainAndAgain_asBouncyCastleDoes() {
    byte[] d = Blake3.hash(new byte[] {1, 2, 3});
    byte[] expected = d.clone();
    for (int times = 0; times <= 40; times++) {
      assertThat(Blake3.rehash(d, times)).as("%d rounds", times).isEqualTo(expected);
      org.bouncycastle.crypto.digests.Blake3Digest bc =
          new org.bouncycastle.crypto.digests.Blake3Digest(256);
      bc.update(expected, 0, expected.length);
      expected = new byte[32];
      bc.doFinal(expected, 0);
    }
    assertThat(d).isEqualTo(Blake3.hash(new byte[] {1, 2, 3})); // the input is not modified
  }

  @Test
  void rehash_refusesAnythingButThirtyTwoBytes_andNegativeTimes() {
    assertThatThrownBy(() -> Blake3.rehash(new byte[31], 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rehash takes 32 bytes, got 31");
    assertThatThrownBy(() -> Blake3.rehash(new byte[32], -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("times is at least 0, got -1");
  }
}
