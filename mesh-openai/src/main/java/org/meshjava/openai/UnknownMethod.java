package org.meshjava.openai;

import java.util.Optional;
import java.util.Set;

/**
 * The refusal of a request method this server does not know at all. A method name is case-sensitive
 * (RFC 9110 §9.1), so {@code get} is not {@code GET}: answered 405 "use GET here, not get", it
 * would tell the client the path exists and only its method is wrong, and {@code FOO} would get the
 * same 405 as {@code PUT}. RFC 9110 §9.1 and §15.6.2 answer a method the server does not recognise
 * with 501 Not Implemented; the methods it defines (and PATCH, RFC 5789) are recognised, and each
 * path answers one it does not serve with 405. Both listeners refuse alike. Stateless.
 */
final class UnknownMethod {
  private UnknownMethod() {}

  /** The methods RFC 9110 §9 defines, and PATCH (RFC 5789): each known, served or not. */
  private static final Set<String> KNOWN =
      Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

  /**
   * 501 {@code method_not_implemented} for {@code method} when this server does not know it, its
   * {@code Allow} naming {@code served}, the methods the listener serves on some path.
   */
  static Optional<Reply> refusal(String method, String served) {
    if (KNOWN.contains(method)) {
      return Optional.empty();
    }
    String hint =
        KNOWN.contains(method.toUpperCase(java.util.Locale.ROOT))
            ? " (method names are case-sensitive, RFC 9110 §9.1: "
                + method.toUpperCase(java.util.Locale.ROOT)
                + ", not "
                + method
                + ")"
            : "";
    return Optional.of(
        ErrorReply.invalid(
                501,
                "method_not_implemented",
                "the method "
                    + method
                    + " is not one this server knows"
                    + hint
                    + "; it serves "
                    + served)
            .allowing(served));
  }
}
