package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Opening;

/**
 * What a party holds about one sealed serve that lets it re-execute the serve (§6.4): the parameter
 * record of {@link Replayer#replay}. None of it comes from the engine being replayed on.
 *
 * @param receipt the receipt, already verified by its envelope
 * @param request the request the receipt is for
 * @param prompt the prompt payload to re-run on
 * @param opening the receipt's opening, as the steward disclosed it
 * @param disclosed the output the steward disclosed for this receipt, if any
 */
public record ReplayInputs(
    MeshReceipt receipt,
    ServeRequest request,
    TokenSequence prompt,
    Opening opening,
    Optional<Disclosure> disclosed) {

  /** Validates that every part is present. */
  public ReplayInputs {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(opening, "opening");
    Objects.requireNonNull(disclosed, "disclosed");
  }

  /** The inputs of a serve whose output was not disclosed. */
  public ReplayInputs(
      MeshReceipt receipt, ServeRequest request, TokenSequence prompt, Opening opening) {
    this(receipt, request, prompt, opening, Optional.empty());
  }

  /** These inputs with {@code output} as the output the steward disclosed. */
  public ReplayInputs withDisclosure(Disclosure output) {
    return new ReplayInputs(receipt, request, prompt, opening, Optional.of(output));
  }
}
