package org.meshjava.openai;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The lines of an upstream's streamed reply (server-sent events), read within two bounds: the
 * length of one line and the bytes of the whole stream.
 *
 * <p>Why: {@code BufferedReader.lines()} holds a line until its end comes, so an upstream that
 * sends one endless line (broken, or hostile) would fill the steward's heap; and a stream of
 * endless small lines (comments, empty deltas) is bounded by nothing. A whole reply has {@link
 * UpstreamHttp#MAX_REPLY_BYTES}; this is the same guard for a streamed one.
 *
 * <p>A line ends at LF, CRLF or a lone CR, as server-sent events allow; the ending is not part of
 * the line. Bytes are decoded as UTF-8, and a line that is not UTF-8 fails ({@link NotUtf8}) rather
 * than becoming U+FFFD, as a browser's reader would make it: an event's data is JSON, which is
 * UTF-8 (RFC 8259 §8.1), and a whole reply holding the same bytes fails as not JSON. A byte order
 * mark opening the stream is dropped, as an event stream's decoder drops it. Not thread-safe: one
 * serve reads it.
 */
final class EventLines {
  private final InputStream in;
  private final int maxLineBytes;
  private long bytesLeft;
  private final long maxBytes;

  /** Whether no line has been returned yet: the stream's first may open with a byte order mark. */
  private boolean first = true;

  private final byte[] buffer = new byte[8192];
  private int position;
  private int limit;
  private boolean skipLineFeed;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

  /**
   * Reads {@code in} in lines of at most {@code maxLineBytes} bytes each (without their ending), at
   * most {@code maxBytes} bytes in all (endings included).
   */
  EventLines(InputStream in, int maxLineBytes, long maxBytes) {
    if (maxLineBytes < 1 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "bounds must be positive: " + maxLineBytes + " per line, " + maxBytes + " in all");
    }
    this.in = in;
    this.maxLineBytes = maxLineBytes;
    this.maxBytes = maxBytes;
    this.bytesLeft = maxBytes;
  }

  /**
   * The next line, or {@code null} at the end of the stream (a last line without an ending is still
   * returned).
   *
   * @throws IOException if reading fails, with {@link TooLong} if a line or the stream is over its
   *     bound, or with {@link NotUtf8} if the line is not UTF-8; nothing more is read after either
   *     of the first two
   */
  @Nullable String next() throws IOException {
    line.reset();
    while (true) {
      if (position == limit && !fill()) {
        return line.size() == 0 ? null : decoded();
      }
      byte b = buffer[position++];
      if (skipLineFeed) {
        skipLineFeed = false;
        if (b == '\n') {
          continue;
        }
      }
      if (b == '\n') {
        return decoded();
      }
      if (b == '\r') {
        skipLineFeed = true;
        return decoded();
      }
      if (line.size() == maxLineBytes) {
        throw new TooLong("an event line is longer than " + maxLineBytes + " bytes");
      }
      line.write(b);
    }
  }

  private boolean fill() throws IOException {
    if (bytesLeft == 0) {
      // One more byte would be over the bound; an upstream that has ended sends none.
      if (in.read() == -1) {
        return false;
      }
      throw new TooLong("the stream is longer than " + maxBytes + " bytes");
    }
    int n = in.read(buffer, 0, (int) Math.min(buffer.length, bytesLeft));
    if (n == -1) {
      return false;
    }
    position = 0;
    limit = n;
    bytesLeft -= n;
    return true;
  }

  private String decoded() throws NotUtf8 {
    String text = line.toString(StandardCharsets.UTF_8);
    // The decoder put U+FFFD for what was not UTF-8; one sent as its own UTF-8 is checked again.
    if (text.indexOf('\uFFFD') >= 0) {
      try {
        var unused =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(line.toByteArray()));
      } catch (CharacterCodingException e) {
        throw new NotUtf8();
      }
    }
    if (first) {
      first = false;
      // One byte order mark opening the stream is no part of it, as an event stream's decoder drops
      // it (and Jackson drops one before a whole reply): kept, it hid the first line's "data:".
      if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
        return text.substring(1);
      }
    }
    return text;
  }

  /** A line is not UTF-8. */
  static final class NotUtf8 extends IOException {
    private static final long serialVersionUID = 1L;

    NotUtf8() {
      super("a line of the stream is not UTF-8");
    }
  }

  /** A line or the whole stream is over its bound. */
  static final class TooLong extends IOException {
    private static final long serialVersionUID = 1L;

    TooLong(String message) {
      super(message);
    }
  }
}
