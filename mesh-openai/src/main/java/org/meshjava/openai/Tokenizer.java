package org.meshjava.openai;

import org.meshjava.core.TokenSequence;

/**
 * How one backend's text becomes the token payload it is handed, and how the tokens it emits
 * become text again (§5, §6.4). The binding encodes the canonical {@link Prompt} text with the
 * tokenizer of the backend the request routes to; the payload's digest enters the receipt's output
 * commitment, so a replay must encode the same way.
 *
 * <p>Implementations must be stateless and thread-safe.
 */
public interface Tokenizer {

  /** A short name for logs and {@code GET /v1/models}. */
  String name();

  /** The token payload for canonical prompt text. */
  TokenSequence encode(byte[] promptText);

  /** The text of emitted tokens, as the response's message content. */
  String decode(TokenSequence output);
}
