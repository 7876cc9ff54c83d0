package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;

/**
 * The serve the steward benchmarks measure: a generation of 16 tokens for a 16-token prompt, with a
 * ceiling of 16 output tokens at fidelity F1 and a budget that never binds.
 *
 * @param request the request, addressed by the prompt text's content id
 * @param prompt the tokenised prompt: 16 zeros, whatever the text
 */
record BenchServe(ServeRequest request, TokenSequence prompt) {

  /** Validates the parts. */
  BenchServe {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
  }

  /** The serve of {@code text}; distinct texts give requests with distinct ids. */
  static BenchServe of(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return new BenchServe(
        ServeRequest.generation(
            ContentId.ofBytes(bytes), 16, new ServeBounds(16, Fidelity.F1, 1_000_000)),
        TokenSequence.of(new int[16]));
  }
}
