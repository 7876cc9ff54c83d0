package org.meshjava.receipt.tlog;

import java.util.Base64;

/**
 * Reads base64 as the log writes it: the standard alphabet, {@code '='} padding and the unused low
 * bits of the last digit zero, so each byte string has exactly one text. Java's own decoder also
 * takes the text without its {@code '='} and with those bits set; a reader that took them would
 * accept several spellings of one checkpoint line, signature or proof hash, which a verifier must
 * not (SPEC.md, Transparency log).
 */
final class StandardBase64 {
  private StandardBase64() {}

  /**
   * Decodes {@code text} if it is the one standard base64 spelling of its bytes.
   *
   * @throws IllegalArgumentException if it is not base64, or not as the standard encoder writes it
   */
  static byte[] decode(String text) {
    byte[] bytes = Base64.getDecoder().decode(text);
    if (!Base64.getEncoder().encodeToString(bytes).equals(text)) {
      throw new IllegalArgumentException(
          "not base64 as the standard encoder writes it ('=' padding, unused bits zero)");
    }
    return bytes;
  }
}
