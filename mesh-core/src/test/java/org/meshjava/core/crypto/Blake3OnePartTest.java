package org.meshjava.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.bouncycastle.crypto.digests.Blake3Digest;
import org.bouncycastle.crypto.params.Blake3Parameters;
import org.junit.jupiter.api.Test;

/**
 * {@link Blake3#hash(byte[]...)} of one part up to a chunk reads the part where it lies, its short
 * last block word by word with the rest of the block zero: against BouncyCastle at every length to
 * two chunks (whole blocks, short last blocks, the empty input, and past the one-chunk path), and
 * the part left as it was. {@link Blake3#keyedHash} of up to a chunk takes the same path under the
 * key's words: held to BouncyCastle's keyed mode the same way, and the key left as it was.
 */
class Blake3OnePartTest {
  @Test
  void hashOfOnePart_matchesBouncyCastle_atEveryLengthToTwoChunks() {
    byte[] in = Blake3VectorsTest.input(2048);
    for (int len = 0; len <= 2048; len++) {
      byte[] part = Arrays.copyOf(in, len);
      byte[] ours = Blake3.hash(part);
      Blake3Digest d = new Blake3Digest(256);
      d.update(in, 0, len);
      byte[] theirs = new byte[32];
      d.doFinal(theirs, 0);
      assertThat(ours).as("length %d", len).isEqualTo(theirs);
      assertThat(part).as("the part, length %d", len).isEqualTo(Arrays.copyOf(in, len));
    }
  }

  /**
   * Several parts up to a chunk are joined into one padded copy and take the same path: held to
   * BouncyCastle's hash of the parts one after another, split at every point (and into three) at
   * lengths around the block and chunk edges.
   */
  @Test
  void hashOfSeveralParts_matchesBouncyCastle_splitAtEveryPoint() {
    byte[] in = Blake3VectorsTest.input(1025);
    for (int len : new int[] {0, 1, 31, 63, 64, 65, 127, 128, 700, 1023, 1024, 1025}) {
      Blake3Digest d = new Blake3Digest(256);
      d.update(in, 0, len);
      byte[] theirs = new byte[32];
      d.doFinal(theirs, 0);
      for (int cut = 0; cut <= len; cut++) {
        byte[] a = Arrays.copyOfRange(in, 0, cut);
        byte[] b = Arrays.copyOfRange(in, cut, len);
        assertThat(Blake3.hash(a, b)).as("length %d cut at %d", len, cut).isEqualTo(theirs);
        int mid = cut / 2;
        assertThat(Blake3.hash(Arrays.copyOf(a, mid), Arrays.copyOfRange(a, mid, cut), b))
            .as("length %d cut at %d and %d", len, mid, cut)
            .isEqualTo(theirs);
      }
    }
  }

  @Test
  void keyedHashOfOnePart_matchesBouncyCastle_atEveryLengthToTwoChunks() {
    byte[] in = Blake3VectorsTest.input(2048);
    byte[] key = new byte[32];
    new Random(36).nextBytes(key);
    byte[] keyBefore = key.clone();
    for (int len = 0; len <= 2048; len++) {
      byte[] message = Arrays.copyOf(in, len);
      byte[] ours = Blake3.keyedHash(key, message);
      Blake3Digest d = new Blake3Digest(256);
      d.init(Blake3Parameters.key(key));
      d.update(in, 0, len);
      byte[] theirs = new byte[32];
      d.doFinal(theirs, 0);
      assertThat(ours).as("length %d", len).isEqualTo(theirs);
      assertThat(message).as("the message, length %d", len).isEqualTo(Arrays.copyOf(in, len));
    }
    assertThat(key).as("the key").isEqualTo(keyBefore);
  }

  /**
   * The keyed one-chunk path reads the key's words itself: keys whose bytes have the top bit set (a
   * sign-extension slip), all zero (the same as no key), the official vectors' key and bytes
   * counting up (a word-order slip) all match BouncyCastle's keyed mode at every length to two
   * chunks.
   */
  @Test
  void keyedHash_matchesBouncyCastle_underKeysOfEveryShape_atEveryLengthToTwoChunks() {
    byte[] in = Blake3VectorsTest.input(2048);
    byte[] high = new byte[32];
    Arrays.fill(high, (byte) 0xFF);
    byte[] alternating = new byte[32];
    byte[] counting = new byte[32];
    for (int i = 0; i < 32; i++) {
      alternating[i] = (byte) (i % 2 == 0 ? 0x80 : 0x7F);
      counting[i] = (byte) i;
    }
    byte[] official = "whats the Elvish word for friend".getBytes(StandardCharsets.US_ASCII);
    for (byte[] key : List.of(new byte[32], high, alternating, counting, official)) {
      for (int len = 0; len <= 2048; len++) {
        Blake3Digest d = new Blake3Digest(256);
        d.init(Blake3Parameters.key(key));
        d.update(in, 0, len);
        byte[] theirs = new byte[32];
        d.doFinal(theirs, 0);
        assertThat(Blake3.keyedHash(key, Arrays.copyOf(in, len)))
            .as("key %s, length %d", HexFormat.of().formatHex(key), len)
            .isEqualTo(theirs);
      }
    }
  }

  /** A key that is not 32 bytes is refused on the one-chunk path as on the streaming one. */
  @Test
  void keyedHash_refusesAKeyThatIsNot32Bytes_atEveryMessageSize() {
    for (int keyLen : new int[] {0, 1, 16, 31, 33, 64}) {
      for (int len : new int[] {0, 1, 64, 1024, 1025}) {
        assertThatThrownBy(() -> Blake3.keyedHash(new byte[keyLen], new byte[len]))
            .as("key of %d bytes, message of %d", keyLen, len)
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
  }
}
