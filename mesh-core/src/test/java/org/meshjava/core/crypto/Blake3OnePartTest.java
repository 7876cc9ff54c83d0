package org.meshjava.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.bouncycastle.crypto.digests.Blake3Digest;
import org.bouncycastle.crypto.params.Blake3Parameters;
import org.junit.jupiter.api.Test;

/**
 * {@link Blake3#hash(byte[]...)} of one part up to a chunk reads the part where it lies and only
 * its short last block through a padded copy: against BouncyCastle at every length to two chunks
 * (whole blocks, short last blocks, the empty input, and past the one-chunk path), and the part
 * left as it was. {@link Blake3#keyedHash} of up to a chunk takes the same path under the key's
 * words: held to BouncyCastle's keyed mode the same way, and the key left as it was.
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
}
