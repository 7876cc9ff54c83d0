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
 * part of the data. An event whose data is empty is none. Data left when the stream ends without
 * the blank line that dispatches it is no event: the format discards it, and so do the SDKs, so a
 * client of the upstream never sees it either ({@link #endedInsideAnEvent()} says so).
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

  /** Reads events from {@code lines}, each event's joined data at most {@code maxDataChars}. */
  ServerSentEvents(EventLines lines, int maxDataChars) {
    if (maxDataChars < 1) {
      throw new IllegalArgumentException("maxDataChars must be positive: " + maxDataChars);
    }
    this.lines = lines;
    this.maxDataChars = maxDataChars;
  }

  /**
   * The next event's data, or null at the end of the stream.
   *
   * @throws IOException as {@link EventLines#next()}, or {@link EventLines.TooLong} if an event's
   *     data is over its bound
   */
  @Nullable String next() throws IOException {
    String line;
    while ((line = lines.next()) != null) {
      if (line.isEmpty()) {
        if (pending) {
          pending = false;
          String event = data.toString();
          data.setLength(0);
          if (!event.isEmpty()) {
            events++;
            return event;
          }
        }
        continue;
      }
      int from = line.startsWith("data") ? dataValue(line) : -1;
      if (from < 0) {
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
   * Where a {@code data} field's value starts in {@code line}, which starts with "data": after the
   * colon and one space; the line's end for a line that is the field's name alone; -1 if the line
   * is another field (such as {@code dataset:}).
   */
  private static int dataValue(String line) {
    if (line.length() == 4) {
      return 4;
    }
    if (line.charAt(4) != ':') {
      return -1;
    }
    return line.length() > 5 && line.charAt(5) == ' ' ? 6 : 5;
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
