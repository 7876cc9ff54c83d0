package org.meshjava.metrics;

import java.util.Set;

/**
 * The {@code http.request.method} tag of a received request. The method is the client's to choose:
 * the HTTP binding opens its request scope before it answers 501 for a method it does not know, so
 * tagged as sent, each made-up name would add a timer that the registry keeps (and scrapes) for the
 * life of the process. Methods outside RFC 9110 §9 and PATCH (RFC 5789) are tagged {@value #OTHER},
 * as OpenTelemetry's HTTP conventions tag a method the instrumentation does not know.
 */
final class RequestMethodTag {
  /**
   * The tag of every method not in {@link #KNOWN}, {@code get} (methods are case-sensitive) too.
   */
  static final String OTHER = "_OTHER";

  private static final Set<String> KNOWN =
      Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

  private RequestMethodTag() {}

  /** {@code method} if HTTP defines it, else {@value #OTHER}. */
  static String of(String method) {
    return KNOWN.contains(method) ? method : OTHER;
  }
}
