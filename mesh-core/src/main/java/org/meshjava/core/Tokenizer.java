package org.meshjava.core;

import java.util.Optional;

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

  /**
   * The text {@code token} adds at position {@code index} of an output, when this tokenizer decodes
   * each token on its own: {@link #decode} of any sequence is then the concatenation, in order, of
   * what each of its tokens adds here. Empty (the default) when a token's text depends on the
   * tokens around it, as when bytes are gathered into characters across tokens or a leading space
   * is dropped.
   *
   * <p>Why: a stream sends the new text of each token as it is emitted. Without this or {@link
   * #decodesLocally} it can only decode the whole output again for every token, which costs a
   * stream of n tokens n²/2.
   *
   * @param index how many tokens come before it in the output
   * @param token the id, read as {@link TokenSequence#get} reads it (unsigned)
   */
  default Optional<String> piece(int index, long token) {
    return Optional.empty();
  }

  /**
   * Whether what tokens add to this tokenizer's text depends only on the tokens just before them.
   * Precisely: take any output split into three runs {@code a}, {@code b}, {@code c}, where the
   * decoding of {@code a} then {@code b} ends on a whole character (neither U+FFFD nor a high
   * surrogate) and {@code b} on its own decodes to some text. Then the text that appending {@code
   * c} adds to the decoding of {@code a} then {@code b} is the text it adds to the decoding of
   * {@code b} alone. False (the default) unless the tokenizer says so.
   *
   * <p>A tokenizer that gathers its tokens' bytes and reads them as UTF-8, dropping one leading
   * space and skipping special tokens (SentencePiece with byte fallback, byte-level BPE) has this
   * property: UTF-8 starts afresh after a whole character, and a dropped leading space is dropped
   * from both decodings alike.
   *
   * <p>Why: a stream over such a tokenizer decodes only a short window of its newest tokens per
   * token. A tokenizer that says so wrongly gets wrong text in its streams (the receipt still
   * commits the tokens, and the final text is decoded whole).
   */
  default boolean decodesLocally() {
    return false;
  }
}
