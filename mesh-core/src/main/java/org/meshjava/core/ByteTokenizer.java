package org.meshjava.core;

import java.util.Optional;

/**
 * Byte-level tokenization, the default of every engine that brings no tokenizer of its own: the
 * prompt payload is one token per prompt byte, its id the byte's value (0–255). Output ids are
 * rendered each in base 36 (lowercase), separated by single spaces, since an engine without a
 * vocabulary emits ids that stand for no language: ids {@code [35, 36, 50256]} read {@code "z 10
 * 12s0"}. Stateless and thread-safe.
 */
public final class ByteTokenizer implements Tokenizer {
  /** The one instance. */
  public static final ByteTokenizer INSTANCE = new ByteTokenizer();

  private ByteTokenizer() {}

  @Override
  public String name() {
    return "bytes";
  }

  @Override
  public TokenSequence encode(byte[] promptText) {
    int[] ids = new int[promptText.length];
    for (int i = 0; i < promptText.length; i++) {
      ids[i] = promptText[i] & 0xFF;
    }
    return TokenSequence.of(ids);
  }

  @Override
  public String decode(TokenSequence output) {
    StringBuilder sb = new StringBuilder(output.size() * 4);
    for (int i = 0; i < output.size(); i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(Long.toString(output.get(i), 36));
    }
    return sb.toString();
  }

  /** Each id in base 36, after a space unless it is the first: {@link #decode}, piece by piece. */
  @Override
  public Optional<String> piece(int index, long token) {
    String id = Long.toString(token, 36);
    return Optional.of(index == 0 ? id : " " + id);
  }
}
