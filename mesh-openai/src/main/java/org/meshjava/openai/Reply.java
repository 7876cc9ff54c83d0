package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/** What the binding answers: one JSON document, or a stream of server-sent events. */
sealed interface Reply permits Reply.Json, Reply.Streamed, Reply.Text {

  /** The HTTP status. */
  int status();

  /**
   * One JSON document.
   *
   * @param status the HTTP status
   * @param body the document: a tree, or for a served reply a value written straight to bytes
   *     ({@link WrittenJson}), which renders the same but has no fields to read
   * @param retry what the reply tells a client library's automatic retries
   * @param allow the methods the path answers, sent as {@code Allow} with a 405 (RFC 9110 §15.5.6)
   */
  record Json(int status, JsonNode body, Retry retry, Optional<String> allow) implements Reply {
    public Json {
      Objects.requireNonNull(body, "body");
      Objects.requireNonNull(retry, "retry");
      Objects.requireNonNull(allow, "allow");
    }

    Json(int status, JsonNode body) {
      this(status, body, Retry.UNSAID, Optional.empty());
    }

    Json(int status, JsonNode body, Retry retry) {
      this(status, body, retry, Optional.empty());
    }

    /** This reply, telling clients not to send the request again on their own. */
    Json futile() {
      return new Json(status, body, Retry.FUTILE, allow);
    }

    /** This reply, naming the methods its path answers. */
    Json allowing(String methods) {
      return new Json(status, body, retry, Optional.of(methods));
    }
  }

  /**
   * What a refusal tells a client library's automatic retries. The official OpenAI SDKs (Python,
   * Node, Java) resend a request answered 408, 409, 429 or 5xx on their own, a few times, unless
   * the reply says {@code x-should-retry: false}. Some of our refusals are not worth a resend: one
   * that a second later meets the same state, and a granted serve whose presentation was spent
   * before it failed, where the resend is refused {@code presentation-spent} and the client sees
   * that instead of why its serve failed.
   */
  enum Retry {
    /** Nothing said: the client's own policy decides. */
    UNSAID,
    /**
     * {@code Retry-After: 1} ({@link Endpoints#RETRY_AFTER_SECONDS}): nothing of the request was
     * decided and it can be served soon; a full server or backend frees a slot within a serve's
     * time, and a draining one is replaced by what answers at its address next.
     */
    AFTER_A_SECOND,
    /** {@code x-should-retry: false}: the same request would not be served. */
    FUTILE
  }

  /**
   * A text document of a given content type (the Prometheus exposition at {@code /metrics}).
   *
   * @param status the HTTP status
   * @param contentType the {@code Content-Type}
   * @param body the text, sent as UTF-8
   */
  record Text(int status, String contentType, String body) implements Reply {
    public Text {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
    }
  }

  /**
   * A {@code text/event-stream} produced while it is written: the producer runs on the serving
   * thread and sends each event as it has it. The status and headers go out with the first event; a
   * producer that fails before sending any returns the reply to write instead.
   *
   * @param producer what writes the events
   */
  record Streamed(Producer producer) implements Reply {
    public Streamed {
      Objects.requireNonNull(producer, "producer");
    }

    @Override
    public int status() {
      return 200;
    }
  }

  /** Writes a streamed reply's events. */
  @FunctionalInterface
  interface Producer {
    /** Sends the events; returns the reply to write instead when it sent none (a refusal). */
    Optional<Reply> run(Channel channel);
  }

  /** Where a producer sends events. Used from one thread. */
  interface Channel {
    /** Sends and flushes one event; {@code false} once the client is gone. */
    boolean send(Event event);

    /** Whether any event has been sent, so the status is committed. */
    boolean started();
  }

  /**
   * One server-sent event as it goes on the wire: an optional {@code event:} line naming it, one
   * {@code data:} line, and the blank line that ends it. Immutable.
   */
  final class Event {
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.UTF_8);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.UTF_8);

    private final byte[] wire;

    private Event(Optional<String> name, byte[] data) {
      Objects.requireNonNull(name, "name");
      name.ifPresent(n -> oneLine("name", n));
      byte[] head =
          name.map(n -> ("event: " + n + "\ndata: ").getBytes(StandardCharsets.UTF_8)).orElse(DATA);
      byte[] w = new byte[head.length + data.length + END.length];
      System.arraycopy(head, 0, w, 0, head.length);
      System.arraycopy(data, 0, w, head.length, data.length);
      System.arraycopy(END, 0, w, head.length + data.length, END.length);
      this.wire = w;
    }

    /**
     * An event whose data is {@code json}, rendered as whole replies are ({@link JsonBytes}).
     *
     * @param name the event name (the responses API names its events; chat does not)
     * @throws IllegalArgumentException if the name is not one line
     */
    static Event json(Optional<String> name, JsonNode json) {
      return new Event(name, JsonBytes.of(json));
    }

    /**
     * An event whose data is {@code text} (chat's closing {@code [DONE]}).
     *
     * @throws IllegalArgumentException if the text or the name is not one line
     */
    static Event text(Optional<String> name, String text) {
      oneLine("data", text);
      return new Event(name, text.getBytes(StandardCharsets.UTF_8));
    }

    private static void oneLine(String what, String s) {
      if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
        throw new IllegalArgumentException("an event's " + what + " is one line");
      }
    }

    /** The event's bytes, blank line included. */
    ByteBuffer wire() {
      return ByteBuffer.wrap(wire).asReadOnlyBuffer();
    }
  }
}
