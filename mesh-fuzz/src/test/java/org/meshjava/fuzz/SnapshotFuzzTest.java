package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;

/**
 * A snapshot file's body as its steward signed it: what a restart and {@code mesh journal verify}
 * decode once the signature holds. The input is the body; it is signed here with {@link #KEY}, so
 * the fuzzer reaches the state decoder behind the signature (a body naming another steward fails
 * its signature, as an altered file does).
 */
class SnapshotFuzzTest {
  /** The steward whose snapshots the stored inputs are: {@link StewardFuzzTest}'s. */
  static final SigningKey KEY = StewardFuzzTest.STEWARD;

  private static final byte[] CONTEXT =
      "mesh/1 journal snapshot\n".getBytes(StandardCharsets.UTF_8);

  @FuzzTest(maxDuration = "60s")
  void body(byte[] input) {
    byte[] file = signed(input);
    Hostile.only(
        () -> {
          Snapshot s = Snapshot.openAsNamed(file);
          // Signing what was read gives the file back: decode accepts only what sign writes.
          byte[] levels =
              s.tree().map(t -> t.packedLevels(s.state().receipts().size())).orElse(new byte[0]);
          if (!Arrays.equals(Snapshot.sign(KEY, s.state(), levels).encoded(), file)) {
            throw new AssertionError("accepted snapshot re-encodes differently");
          }
        },
        SnapshotException.class);
  }

  /** {@code body} as a snapshot file: {@code [body, signature]}, the signature by {@link #KEY}. */
  static byte[] signed(byte[] body) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(body);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] message = Arrays.copyOf(CONTEXT, CONTEXT.length + digest.length);
    System.arraycopy(digest, 0, message, CONTEXT.length, digest.length);
    return CborArray.of(CborBytes.of(body), CborBytes.of(KEY.sign(message))).encode();
  }
}
