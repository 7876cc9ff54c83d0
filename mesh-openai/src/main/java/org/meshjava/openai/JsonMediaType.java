package org.meshjava.openai;

import java.util.Locale;

/**
 * Which {@code Content-Type} a POST body may be sent as: {@code application/json}, in any letter
 * case, with no parameter but an optional {@code charset=utf-8} (RFC 8259 §11 defines none; UTF-8
 * is the only encoding served). Anything else, a missing header included, is answered 415: a form
 * or text body that happens to parse as JSON was not sent as a request. Stateless.
 */
final class JsonMediaType {
  private JsonMediaType() {}

  /** Whether a body sent with this {@code Content-Type} header (null when absent) is read. */
  static boolean accepts(String header) {
    if (header == null) {
      return false;
    }
    if (header.equals("application/json")) {
      // What the SDKs send, decided without splitting and lower-casing on every request.
      return true;
    }
    String[] parts = header.split(";", -1);
    if (!parts[0].strip().toLowerCase(Locale.ROOT).equals("application/json")) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String param = parts[i].strip();
      if (param.isEmpty()) {
        continue;
      }
      int eq = param.indexOf('=');
      if (eq < 0 || !param.substring(0, eq).strip().equalsIgnoreCase("charset")) {
        return false;
      }
      String value = param.substring(eq + 1).strip();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      if (!value.equalsIgnoreCase("utf-8")) {
        return false;
      }
    }
    return true;
  }
}
