package org.meshjava.core;

/**
 * How an engine turns prompt bytes into the token payload it is handed, and its emitted tokens back
 * into text (§5, §6.4). Tokenization belongs to the engine: the steward routes a request first and
 * then asks the routed engine's tokenizer for the payload, so a request is never encoded for one
 * engine and served by another. The payload's digest enters the receipt's output commitment, so a
 * replay must encode the same way.
 *
 * <p>Implementations must be stateless (or internally synchronised) and thread-safe.
 */
public interface Tokenizer {

  /** A short name for logs and model listings. */
  String name();

  /** The token payload for prompt bytes (the bytes {@code prompt_hash} addresses). */
  TokenSequence encode(byte[] promptText);

  /** The text of emitted tokens. */
  String decode(TokenSequence output);
}
