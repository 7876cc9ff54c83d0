package org.meshjava.cli;

import org.meshjava.core.TokenSequence;

/** The demo's tokenizer: each UTF-8 byte of the prompt is one token, its id the byte's value. */
final class ByteTokens {
  private ByteTokens() {}

  static TokenSequence of(byte[] utf8) {
    int[] ids = new int[utf8.length];
    for (int i = 0; i < utf8.length; i++) {
      ids[i] = utf8[i] & 0xFF;
    }
    return TokenSequence.of(ids);
  }
}
