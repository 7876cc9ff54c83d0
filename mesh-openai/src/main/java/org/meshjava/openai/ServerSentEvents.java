package org.meshjava.openai;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The data of an upstream's server-sent events, one event at a time, read from its {@link
 * EventLines} as the event-stream format (WHATWG HTML §9.2) and the official OpenAI SDKs read them.
 *
 * <p>An event is the lines up to a blank line. Its {@code data} lines are joined with a line feed,
 * so an event whose JSON is written over several {@code data:} lines is one value, not several
 * fragments that are no JSON. One space after a field's colon is dropped, as the format says, and a
 * {@code data:} with no space is read alike. A line opening with a colon is a comment, and the
 * other fields ({@code event}, {@code id}, {@code retry}, and any the format does not know) are no
 * part of the data; an event named {@code error} is told apart ({@link #errorEvent()}). A blank
 * line ends an event when a {@code data} field came since the last one, even with an empty value,
 * or an {@code event} field named it (its last such field not empty): so {@code event: ping} alone
 * is an event whose data is empty, as the Python SDK and the Node SDK (v6 and v7) dispatch it, each
 * then failing to read that data as JSON. Lines with neither ({@code id:} or {@code retry:} alone)
 * end none, as in the Node SDK. Data left when the stream ends without the blank line that
 * dispatches it is no event: the format discards it, and so do the Python SDK and the Node SDK
 * through v6 (v7 dispatches it), so most clients of the upstream never see it either ({@link
 * #endedInsideAnEvent()} says so).
 *
 * <p>Why a bound: an event's data is held until its blank line comes, so an upstream sending data
 * lines without end would fill the heap; the joined data is held to {@code maxDataChars}, past
 * which the read fails ({@link EventLines.TooLong}). Not thread-safe: one serve reads it.
 */
final class ServerSentEvents {
  private final EventLines lines;
  private final int maxDataChars;
  private final StringBuilder data = new StringBuilder();

  /** Whether a data field came since the last dispatch (its value may be empty). */
  private boolean pending;

  private boolean endedInside;
  private long events;

  /** The value of the last {@code event} field since the last dispatch; empty if none came. */
  private String name = "";

  /** Whether the event last returned by {@link #next} was named {@code error}. */
  private boolean errorEvent;

  /** The value of the last {@code error} field read, or null if none came. */
  private @Nullable String errorField;

  /** Reads events from {@code lines}, each event's joined data at most {@code maxDataChars}. */
  ServerSentEvents(EventLines lines, int maxDataChars) {
    if (maxDataChars < 1) {
      throw new IllegalArgumentException("maxDataChars must be positive: " + maxDataChars);
    }
    this.lines = lines;
    this.maxDataChars = maxDataChars;
  }

  /**
   * The next event's data (empty for an event whose data is, or that has a name and no data), or
   * null at the end of the stream.
   *
   * @throws IOException as {@link EventLines#next()}, or {@link EventLines.TooLong} if an event's
   *     data is over its bound
   */
  @Nullable String next() throws IOException {
    String line;
    while ((line = lines.next()) != null) {
      if (line.isEmpty()) {
        String named = name;
        name = "";
        if (pending || !named.isEmpty()) {
          pending = false;
          String event = data.toString();
          data.setLength(0);
          events++;
          errorEvent = named.equals("error");
          return event;
        }
        continue;
      }
      int from = line.startsWith("data") ? fieldValue(line, 4) : -1;
      if (from < 0) {
        if (line.startsWith("event")) {
          // The last event field names the event, as the format says.
          int at = fieldValue(line, 5);
          if (at >= 0) {
            name = line.substring(at);
          }
        } else if (line.startsWith("error")) {
          int at = fieldValue(line, 5);
          if (at >= 0 && !line.substring(at).isBlank()) {
            errorField = line.substring(at);
          }
        }
        // A comment, or a field other than data.
        continue;
      }
      int length = line.length() - from;
      if (data.length() + (pending ? 1 : 0) + length > maxDataChars) {
        throw new EventLines.TooLong(
            "an event's data is longer than " + maxDataChars + " characters");
      }
      if (pending) {
        data.append('\n');
      }
      data.append(line, from, line.length());
      pending = true;
    }
    endedInside = pending;
    return null;
  }

  /**
   * Where a field's value starts in {@code line}, which starts with the field's name of {@code
   * nameLength} characters: after the colon and one space; the line's end for a line that is the
   * name alone; -1 if the line is another field (such as {@code dataset:}).
   */
  private static int fieldValue(String line, int nameLength) {
    if (line.length() == nameLength) {
      return nameLength;
    }
    if (line.charAt(nameLength) != ':') {
      return -1;
    }
    return line.length() > nameLength + 1 && line.charAt(nameLength + 1) == ' '
        ? nameLength + 2
        : nameLength + 1;
  }

  /**
   * The value of the last {@code error} field read, or null if none came: a field the format does
   * not know, so no part of any event, which llama.cpp's server writes ({@code error: {...}}) in
   * place of an event when a streamed generation fails (a prompt past its context, above all). Its
   * line is bounded as every line is.
   */
  @Nullable String errorField() {
    return errorField;
  }

  /**
   * Whether the event last returned by {@link #next} was named {@code error} ({@code event:
   * error}): its data is the upstream's account of a failure, not a chunk, and may be empty.
   */
  boolean errorEvent() {
    return errorEvent;
  }

  /**
   * Whether the stream ended with data no blank line dispatched (read after {@link #next} null).
   */
  boolean endedInsideAnEvent() {
    return endedInside;
  }

  /** How many events were read so far. */
  long events() {
    return events;
  }
}
