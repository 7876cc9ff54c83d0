package org.meshjava.openai;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The binding reads JSON bodies as UTF-8 only (RFC 8259 §8.1), and checks that before any parser
 * sees them. Jackson would otherwise guess UTF-16 or UTF-32 from a byte-order mark or from zero
 * bytes and serve the body, and it lets through some byte sequences that are not UTF-8 at all (an
 * encoded surrogate such as {@code ED A0 80}): a signed body must have exactly one reading.
 *
 * <p>Refused, with 400 {@code not_utf8}: any byte-order mark, the UTF-8 one included (RFC 8259 lets
 * a parser ignore it; here a body means one thing byte for byte); a zero byte, which UTF-8 JSON
 * never holds raw and which every UTF-16 or UTF-32 encoding of JSON does; and any byte sequence
 * that is not well-formed UTF-8 (overlong forms, encoded surrogates, code points above U+10FFFF,
 * truncated sequences). Stateless.
 */
final class Utf8Body {
  private Utf8Body() {}

  /**
   * Checks that {@code body} is well-formed UTF-8 with no byte-order mark and no zero byte.
   *
   * @throws BindingException {@link BindingException.Reason#NOT_UTF8} naming the first offence
   */
  static void check(byte[] body) throws BindingException {
    if (startsWith(body, 0xEF, 0xBB, 0xBF)
        || startsWith(body, 0xFE, 0xFF)
        || startsWith(body, 0xFF, 0xFE)
        || startsWith(body, 0x00, 0x00, 0xFE, 0xFF)) {
      throw notUtf8("the body starts with a byte-order mark");
    }
    boolean ascii = true;
    for (int i = 0; i < body.length; i++) {
      if (body[i] == 0) {
        throw notUtf8(
            "the body holds a zero byte at offset " + i + " (UTF-16 or UTF-32 is not served)");
      }
      ascii &= body[i] > 0;
    }
    if (ascii) {
      // Every byte below 0x80 is one UTF-8 character: nothing to decode (most bodies), and the
      // decoder's 8 KiB buffer was a tenth of what a proxied serve allocated.
      return;
    }
    CharsetDecoder strict =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer sink = CharBuffer.allocate(4096);
    CoderResult r = strict.decode(in, sink, true);
    while (r.isOverflow()) {
      sink.clear();
      r = strict.decode(in, sink, true);
    }
    if (r.isError()) {
      throw notUtf8("the body is not well-formed UTF-8 at offset " + in.position());
    }
  }

  private static boolean startsWith(byte[] body, int... prefix) {
    if (body.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((body[i] & 0xFF) != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private static BindingException notUtf8(String detail) {
    return new BindingException(
        BindingException.Reason.NOT_UTF8, null, detail + "; JSON bodies are UTF-8 (RFC 8259)");
  }
}
