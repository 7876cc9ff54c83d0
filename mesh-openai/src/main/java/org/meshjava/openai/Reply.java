package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
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
   * @param body the document
   * @param retryAfterSeconds a {@code Retry-After} header, under overload
   */
  record Json(int status, JsonNode body, Optional<Integer> retryAfterSeconds) implements Reply {
    public Json {
      Objects.requireNonNull(body, "body");
      Objects.requireNonNull(retryAfterSeconds, "retryAfterSeconds");
    }

    Json(int status, JsonNode body) {
      this(status, body, Optional.empty());
    }
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
   * One server-sent event: an optional {@code event:} name and its {@code data:} line.
   *
   * @param name the event name (the responses API names its events; chat does not)
   * @param data the data, one line
   */
  record Event(Optional<String> name, String data) {
    public Event {
      Objects.requireNonNull(name, "name");
      if (data.indexOf('\n') >= 0 || data.indexOf('\r') >= 0) {
        throw new IllegalArgumentException("an event's data is one line");
      }
    }

    /** The event as it goes on the wire, blank line included. */
    String wire() {
      return name.map(n -> "event: " + n + "\n").orElse("") + "data: " + data + "\n\n";
    }
  }
}
