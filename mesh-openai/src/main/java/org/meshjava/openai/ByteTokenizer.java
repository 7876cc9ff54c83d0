package org.meshjava.openai;

import org.meshjava.core.TokenSequence;

/**
 * The reference engine's tokenizer: byte-level. The prompt payload is one token per byte of the
 * canonical prompt text, its id the byte's value (0–255). The reference engine emits ids from a
 * 50,257-word vocabulary that stands for no language, so an output is rendered as each id in base
 * 36 (lowercase), separated by single spaces: ids {@code [35, 36, 50256]} read {@code "z 10 12s0"}.
 * Stateless and thread-safe.
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
}
