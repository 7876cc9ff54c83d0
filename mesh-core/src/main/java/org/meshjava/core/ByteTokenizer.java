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

  /** The most base-36 digits an id has: ids are unsigned 32-bit, 2³²−1 reads {@code 1z141z3}. */
  private static final int BASE36_DIGITS = 7;

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
    StringBuilder sb = new StringBuilder(output.size() * 5);
    // Digits are written straight into the text: Long.toString(id, 36) would allocate a scratch
    // array and a string per id, and every reply of the reference engine is decoded here.
    char[] digits = new char[BASE36_DIGITS];
    for (int i = 0; i < output.size(); i++) {
      if (i > 0) {
        sb.append(' ');
      }
      appendBase36(sb, output.get(i), digits);
    }
    return sb.toString();
  }

  /** Appends {@code id}, at least 0, as {@link Long#toString(long, int) Long.toString(id, 36)}. */
  private static void appendBase36(StringBuilder sb, long id, char[] digits) {
    int at = digits.length;
    long rest = id;
    do {
      digits[--at] = Character.forDigit((int) (rest % 36), 36);
      rest /= 36;
    } while (rest > 0);
    sb.append(digits, at, digits.length - at);
  }

  /** Each id in base 36, after a space unless it is the first: {@link #decode}, piece by piece. */
  @Override
  public Optional<String> piece(int index, long token) {
    String id = Long.toString(token, 36);
    return Optional.of(index == 0 ? id : " " + id);
  }
}
