package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.meshjava.router.RouteDecision;
import org.meshjava.steward.ServeResult;

/**
 * One streamed reply as the serve produces it, in an endpoint's wire format ({@link
 * Completions.Stream}, {@link Responses.Stream}): opening events once the steward has routed, a
 * delta per piece of text as tokens arrive, and closing events carrying the sealed receipt. A
 * stream's id is random, since the envelope that names a whole reply does not exist until the end.
 */
abstract class StreamedReply {
  private final Reply.Channel channel;
  protected final long created;
  protected final String id = HexFormat.of().formatHex(randomBytes());
  private boolean alive = true;

  StreamedReply(Reply.Channel channel, long created) {
    this.channel = channel;
    this.created = created;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[16];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  /** Sends the opening events for the backend the steward chose. */
  abstract void open(RouteDecision route);

  /** Sends one piece of text; {@code false} once the client is gone. Empty pieces send nothing. */
  abstract boolean delta(String piece);

  /** Sends the last piece, the closing events and the receipt. */
  abstract void finish(ServeResult result, String rest, String text, boolean cut);

  /** Sends an error event after the stream has started, and ends it. */
  abstract void fail(ObjectNode error);

  /** Sends one event; once a send fails, sends nothing more. */
  protected boolean send(Reply.Event e) {
    if (alive) {
      alive = channel.send(e);
    }
    return alive;
  }

  /** Whether the client is still there, as far as the last send could tell. */
  protected boolean alive() {
    return alive;
  }

  /** Whether the stream has started (its status is committed). */
  boolean started() {
    return channel.started();
  }
}
