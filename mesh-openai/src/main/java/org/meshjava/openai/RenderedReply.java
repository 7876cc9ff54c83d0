package org.meshjava.openai;

import java.util.Objects;
import org.meshjava.core.internal.ThrowableWords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole JSON reply with its bytes, rendered before anything of it is set on the response. A
 * served reply is written by code ({@link WrittenJson}: the receipt, usage, energy) only when it is
 * rendered, so a throw there is our own bug met after the status was decided: rendered first, the
 * reply sent is then the 500 {@code internal_error} the bug calls for, never the reply's own status
 * (a 200) with no body, or Jetty's error page.
 */
final class RenderedReply {
  private static final Logger LOG = LoggerFactory.getLogger(RenderedReply.class);

  private final Reply.Json reply;
  private final byte[] bytes;

  private RenderedReply(Reply.Json reply, byte[] bytes) {
    this.reply = Objects.requireNonNull(reply, "reply");
    this.bytes = Objects.requireNonNull(bytes, "bytes");
  }

  /** The reply whose bytes these are: the one asked for, or the 500 in its place. */
  Reply.Json reply() {
    return reply;
  }

  /** Its compact UTF-8 JSON ({@link JsonBytes}), not copied: the caller writes it and drops it. */
  byte[] bytes() {
    return bytes;
  }

  /**
   * {@code json} rendered, or, if rendering it throws, the 500 {@code internal_error} that names
   * {@code requestId}, the failure logged at ERROR under it.
   */
  static RenderedReply of(Reply.Json json, String requestId) {
    try {
      return new RenderedReply(json, JsonBytes.of(json.body()));
    } catch (RuntimeException e) {
      ThrowableWords.log(
          e,
          t -> LOG.error("internal error rendering a {} reply ({})", json.status(), requestId, t),
          kind ->
              LOG.error(
                  "internal error rendering a {} reply ({}): {}, which cannot be printed",
                  json.status(),
                  requestId,
                  kind));
      Reply.Json failed = ErrorReply.internalError(requestId);
      return new RenderedReply(failed, JsonBytes.of(failed.body()));
    }
  }
}
