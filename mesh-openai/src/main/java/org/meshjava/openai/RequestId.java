package org.meshjava.openai;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The id every answer carries in {@code x-request-id}, as OpenAI's API does: {@code req_} and 32
 * hex digits, drawn afresh for each request. The OpenAI SDKs hand it to the caller ({@code
 * _request_id}, {@code request_id} on an error), so a client can name the request it means, and the
 * server's log line for an internal error names the same id. It says nothing about the request and
 * is no secret, so a fast generator does; a serve's own identity is its receipt.
 */
final class RequestId {
  /** The response header. */
  static final String HEADER = "x-request-id";

  private static final HexFormat HEX = HexFormat.of();

  private RequestId() {}

  /** A new id. */
  static String next() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return "req_" + HEX.toHexDigits(r.nextLong()) + HEX.toHexDigits(r.nextLong());
  }
}
