package org.meshjava.conformance.pack.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * JSON text as the UTF-8 bytes the pack's files and its protocol lines carry. A case may hold an
 * unpaired surrogate on purpose (a body that has no UTF-8, refused {@code not_utf8}); Jackson
 * writes one into a string raw, and {@link String#getBytes} would then put {@code ?} in its place,
 * so the file or line would hold another, harmless, body. Each unpaired surrogate is written as its
 * JSON escape ({@code \ud800}) instead: the same string to every JSON reader, in bytes that are
 * UTF-8. The pack's files, the runner's request lines and the reference subject's answer lines all
 * go through here, so the three cannot disagree. Stateless.
 */
public final class JsonUtf8 {
  private JsonUtf8() {}

  /**
   * {@code json}, a JSON text, as UTF-8 with each unpaired surrogate escaped. Outside strings JSON
   * holds only ASCII, so every surrogate stands inside a string, where an escape means the same.
   */
  public static byte[] bytes(String json) {
    return text(json).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code json} with each unpaired surrogate escaped: text that a writer encoding UTF-8 (a {@code
   * PrintWriter} on standard output) writes as it is, where it would put {@code ?} for each
   * unpaired surrogate.
   */
  public static String text(String json) {
    StringBuilder s = null;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      boolean paired =
          Character.isHighSurrogate(c)
              ? i + 1 < json.length() && Character.isLowSurrogate(json.charAt(i + 1))
              : Character.isLowSurrogate(c)
                  && i > 0
                  && Character.isHighSurrogate(json.charAt(i - 1));
      if (Character.isSurrogate(c) && !paired) {
        if (s == null) {
          s = new StringBuilder(json.length() + 16).append(json, 0, i);
        }
        s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else if (s != null) {
        s.append(c);
      }
    }
    return s == null ? json : s.toString();
  }
}
