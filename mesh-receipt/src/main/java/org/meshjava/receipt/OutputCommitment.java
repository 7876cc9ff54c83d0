package org.meshjava.receipt;

import java.nio.charset.StandardCharsets;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.Blake3;

/**
 * The output commitment of §6.4, with its two domain strings:
 *
 * <pre>
 * payload    = BLAKE3("mesh/1 prompt payload\0" ‖ prompt)
 * commitment = BLAKE3("mesh/1 output commitment\0" ‖ opening ‖ request_id ‖ payload ‖ tokens)
 * </pre>
 *
 * where {@code prompt} and {@code tokens} are little-endian u32 token ids, {@code request_id} and
 * {@code payload} their 32 digest bytes, and {@code opening} 32 bytes. Stateless and thread-safe.
 */
public final class OutputCommitment {
  private static final byte[] PAYLOAD_DOMAIN =
      "mesh/1 prompt payload\0".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] COMMITMENT_DOMAIN =
      "mesh/1 output commitment\0".getBytes(StandardCharsets.US_ASCII);

  private OutputCommitment() {}

  /** The payload digest of the prompt token payload an engine was handed. */
  public static ContentId payloadDigest(TokenSequence prompt) {
    return ContentId.fromDigest(Blake3.hash(PAYLOAD_DOMAIN, prompt.toLittleEndian()));
  }

  /** The commitment to {@code tokens} served for {@code requestId} on {@code payload}. */
  public static ContentId commit(
      Opening opening, ContentId requestId, ContentId payload, TokenSequence tokens) {
    return ContentId.fromDigest(
        Blake3.hash(
            COMMITMENT_DOMAIN,
            opening.bytes(),
            requestId.bytes(),
            payload.bytes(),
            tokens.toLittleEndian()));
  }
}
