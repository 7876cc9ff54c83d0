package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.meshjava.router.RouteDecision;
import org.meshjava.steward.ServeResult;

/**
 * One streamed reply as the serve produces it, in an endpoint's wire format ({@link
 * Completions.Stream}, {@link Responses.Stream}): opening events made once the steward has routed,
 * a delta per piece of text as tokens arrive, and closing events carrying the sealed receipt. A
 * stream's id is random, since the envelope that names a whole reply does not exist until the end.
 *
 * <p>The opening events are held until the first piece of text or the closing events: sending them
 * commits the status 200, and an engine that fails before its first token (an upstream that refuses
 * the request, or is down) would then be told as an error event in a 200 stream, which the official
 * SDKs do not raise as the refusal it is. Held, such a failure is answered as an ordinary error
 * reply with its own status, as OpenAI answers it.
 */
abstract class StreamedReply {
  private final Reply.Channel channel;
  protected final long created;
  protected final String id = HexFormat.of().formatHex(randomBytes());
  private boolean alive = true;
  private List<Reply.Event> held = List.of();
  private boolean holding;

  StreamedReply(Reply.Channel channel, long created) {
    this.channel = channel;
    this.created = created;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[16];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  /**
   * Makes the opening events for the backend the steward chose; they go out with the first event
   * after them.
   */
  final void open(RouteDecision route) {
    held = new ArrayList<>();
    holding = true;
    try {
      opening(route);
    } finally {
      holding = false;
    }
  }

  /** Makes the opening events for the backend the steward chose, each with {@link #send}. */
  protected abstract void opening(RouteDecision route);

  /** Sends one piece of text; {@code false} once the client is gone. Empty pieces send nothing. */
  abstract boolean delta(String piece);

  /** Sends the last piece, the closing events and the receipt. */
  abstract void finish(ServeResult result, String rest, String text, boolean cut);

  /** Sends an error event after the stream has started, and ends it. */
  abstract void fail(ObjectNode error);

  /**
   * Sends one event, after the opening events still held; once a send fails, sends nothing more.
   */
  protected boolean send(Reply.Event e) {
    if (holding) {
      held.add(e);
      return alive;
    }
    if (!held.isEmpty()) {
      List<Reply.Event> opening = held;
      held = List.of();
      for (Reply.Event o : opening) {
        sendNow(o);
      }
    }
    return sendNow(e);
  }

  private boolean sendNow(Reply.Event e) {
    if (alive) {
      alive = channel.send(e);
    }
    return alive;
  }

  /** Whether the client is still there, as far as the last send could tell. */
  protected boolean alive() {
    return alive;
  }

  /**
   * Whether the stream has started (its status is committed): not while its opening events are
   * held.
   */
  boolean started() {
    return channel.started();
  }
}
