package org.meshjava.receipt;

import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;

/**
 * An output disclosed for one receipt (§6.4): the commitment's opening, the digest of the prompt
 * payload the engine was handed, and the output tokens. Anyone holding the receipt can check, with
 * {@link #verify(MeshReceipt)}, that these are the tokens it sealed — without the steward, and
 * without the prompt itself, since only the payload's digest is disclosed.
 *
 * <p>The opening binds the receipt's {@code request_id}, so a disclosure opens at most the one
 * receipt it was made for. Immutable and thread-safe.
 *
 * @param opening the commitment's 32-byte opening
 * @param payloadDigest {@code BLAKE3("mesh/1 prompt payload\0" ‖ prompt)}
 * @param tokens the output token ids
 */
public record Disclosure(Opening opening, ContentId payloadDigest, TokenSequence tokens) {

  /** Validates the record. */
  public Disclosure {
    Objects.requireNonNull(opening, "opening");
    Objects.requireNonNull(payloadDigest, "payloadDigest");
    Objects.requireNonNull(tokens, "tokens");
  }

  /** The disclosure of {@code tokens} served on the prompt payload {@code prompt}. */
  public static Disclosure of(Opening opening, TokenSequence prompt, TokenSequence tokens) {
    return new Disclosure(opening, OutputCommitment.payloadDigest(prompt), tokens);
  }

  /** The commitment these values make for {@code requestId}. */
  public ContentId commitment(ContentId requestId) {
    return OutputCommitment.commit(opening, requestId, payloadDigest, tokens);
  }

  /**
   * Checks that this disclosure opens {@code receipt}'s output commitment. Returns normally only if
   * it does; there is no boolean to forget to check.
   *
   * @throws ReceiptException {@link ReceiptException.Reason#NO_COMMITMENT} if the receipt commits
   *     to nothing (a typed decision, or a receipt sealed before commitments), {@link
   *     ReceiptException.Reason#NOT_OPENED} if the opening, payload digest or tokens are not the
   *     ones it committed to
   */
  public void verify(MeshReceipt receipt) throws ReceiptException {
    Objects.requireNonNull(receipt, "receipt");
    ContentId sealed =
        receipt
            .outputCommitment()
            .orElseThrow(
                () ->
                    new ReceiptException(
                        ReceiptException.Reason.NO_COMMITMENT,
                        "receipt for request "
                            + receipt.requestId()
                            + " carries no output_commitment"));
    if (!sealed.equals(commitment(receipt.requestId()))) {
      throw new ReceiptException(
          ReceiptException.Reason.NOT_OPENED,
          "the disclosed opening, payload and "
              + tokens.size()
              + " tokens do not open the commitment of request "
              + receipt.requestId());
    }
  }
}
