package org.meshjava.core.identity;

import java.util.Arrays;

/**
 * The Bitcoin base58 alphabet, as multibase {@code z} uses it. Package-private: only did:key needs
 * it.
 */
final class Base58Btc {
  private static final char[] ALPHABET =
      "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".toCharArray();
  private static final int[] INDEXES = new int[128];

  static {
    Arrays.fill(INDEXES, -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      INDEXES[ALPHABET[i]] = i;
    }
  }

  private Base58Btc() {}

  static String encode(byte[] input) {
    if (input.length == 0) {
      return "";
    }
    int zeros = 0;
    while (zeros < input.length && input[zeros] == 0) {
      zeros++;
    }
    byte[] digits = Arrays.copyOf(input, input.length);
    char[] out = new char[input.length * 2];
    int outStart = out.length;
    int start = zeros;
    while (start < digits.length) {
      out[--outStart] = ALPHABET[divmod(digits, start, 256, 58)];
      if (digits[start] == 0) {
        start++;
      }
    }
    while (outStart < out.length && out[outStart] == ALPHABET[0]) {
      outStart++;
    }
    while (--zeros >= 0) {
      out[--outStart] = ALPHABET[0];
    }
    return new String(out, outStart, out.length - outStart);
  }

  /** Decodes; returns null for a character outside the alphabet. */
  static byte[] decode(String input) {
    if (input.isEmpty()) {
      return new byte[0];
    }
    byte[] input58 = new byte[input.length()];
    for (int i = 0; i < input.length(); i++) {
      char c = input.charAt(i);
      int digit = c < 128 ? INDEXES[c] : -1;
      if (digit < 0) {
        return null;
      }
      input58[i] = (byte) digit;
    }
    int zeros = 0;
    while (zeros < input58.length && input58[zeros] == 0) {
      zeros++;
    }
    byte[] decoded = new byte[input.length()];
    int outStart = decoded.length;
    int start = zeros;
    while (start < input58.length) {
      decoded[--outStart] = (byte) divmod(input58, start, 58, 256);
      if (input58[start] == 0) {
        start++;
      }
    }
    while (outStart < decoded.length && decoded[outStart] == 0) {
      outStart++;
    }
    return Arrays.copyOfRange(decoded, outStart - zeros, decoded.length);
  }

  private static int divmod(byte[] number, int first, int base, int divisor) {
    int remainder = 0;
    for (int i = first; i < number.length; i++) {
      int digit = number[i] & 0xFF;
      int temp = remainder * base + digit;
      number[i] = (byte) (temp / divisor);
      remainder = temp % divisor;
    }
    return remainder;
  }
}
