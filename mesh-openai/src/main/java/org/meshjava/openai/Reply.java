package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What the binding answers: one JSON document, or a stream of server-sent events. */
sealed interface Reply permits Reply.Json, Reply.EventStream {

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
   * A {@code text/event-stream} of events, written in order and flushed one by one.
   *
   * @param events the events
   */
  record EventStream(List<Event> events) implements Reply {
    public EventStream {
      events = List.copyOf(events);
    }

    @Override
    public int status() {
      return 200;
    }
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
