package org.meshjava.openai;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Follows the request framing of the bytes one connection reads, to see a chunk size that takes a
 * body past the body limit as soon as its size line arrives.
 *
 * <p>Why: Jetty's HTTP/1.1 parser reads chunk-size lines itself and tells no handler the size a
 * line declares, and the class through which another parser could be put in its place is not
 * exported to named modules. A chunk declared larger than the limit was therefore refused only once
 * the bytes received passed it; a client that declared one and stalled was held until the body
 * deadline and answered 408. This reads the same bytes beside Jetty's parser, as they are filled,
 * and notes the first request whose chunks so far declare more than the limit.
 *
 * <p>It follows only well-formed framing: request heads ended by an empty line, bodies framed by a
 * decimal {@code Content-Length} or by a {@code Transfer-Encoding} ending in {@code chunked}, chunk
 * sizes in hex with optional extensions, trailers. At anything else (a line Jetty would refuse, a
 * coding it does not undo) it stops for good, so it never judges bytes it might read otherwise than
 * Jetty: Jetty then refuses the request itself, and closes the connection. Requests are counted in
 * the order their heads arrive, which is the order Jetty hands them over.
 *
 * <p>Not thread-safe: the connection's fills come one at a time; {@link WatchedEndPoint} guards it.
 */
final class ChunkSizeWatch {
  /** Longer lines than this are refused by Jetty (its 8 KiB head limit), so nothing is judged. */
  private static final int MAX_LINE = 16 * 1024;

  private enum State {
    /** Between requests: CRLFs may come before a request line. */
    BETWEEN,
    HEAD,
    LENGTH_BODY,
    CHUNK_SIZE,
    CHUNK_EXTENSION,
    CHUNK_SIZE_LF,
    CHUNK_DATA,
    CHUNK_DATA_CR,
    CHUNK_DATA_LF,
    TRAILER,
    /** Framing it does not follow, or a verdict reached: it reads nothing more. */
    STOPPED
  }

  private final long maxBodyBytes;
  private State state = State.BETWEEN;
  private final StringBuilder line = new StringBuilder();
  private boolean requestLine;
  private String currentRequestLine = "";
  private long contentLength;
  private String transferEncoding = "";
  private long remaining;
  private long chunkSize;
  private boolean sizeDigits;
  private long declared;
  private int heads;

  private int overOrdinal;
  private String overRequestLine = "";
  private long overDeclared;

  ChunkSizeWatch(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * The ordinal (1 for a connection's first request) of the request whose chunks declared more than
   * the limit, or 0 while none has.
   */
  int overOrdinal() {
    return overOrdinal;
  }

  /** The request line of the request {@link #overOrdinal} counts. */
  String overRequestLine() {
    return overRequestLine;
  }

  /** The body size its chunks declared, as far as they went past the limit. */
  long overDeclared() {
    return overDeclared;
  }

  /** Reads the bytes from {@code from} to the buffer's position, which a fill just wrote. */
  void read(ByteBuffer buffer, int from, int to) {
    int i = from;
    while (i < to && state != State.STOPPED) {
      switch (state) {
        case LENGTH_BODY, CHUNK_DATA -> {
          long n = Math.min(remaining, to - i);
          remaining -= n;
          i += (int) n;
          if (remaining == 0) {
            state = state == State.LENGTH_BODY ? State.BETWEEN : State.CHUNK_DATA_CR;
          }
        }
        default -> {
          step(buffer.get(i) & 0xff);
          i++;
        }
      }
    }
  }

  private void step(int b) {
    switch (state) {
      case BETWEEN -> {
        if (b != '\r' && b != '\n') {
          state = State.HEAD;
          requestLine = true;
          contentLength = -1;
          transferEncoding = "";
          line.setLength(0);
          line.append((char) b);
        }
      }
      case HEAD, TRAILER -> {
        if (b != '\n') {
          line.append((char) b);
          if (line.length() > MAX_LINE) {
            state = State.STOPPED;
          }
          return;
        }
        int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? 1 : 0;
        String l = line.substring(0, line.length() - end);
        line.setLength(0);
        if (end == 0) {
          state = State.STOPPED; // a bare LF, which Jetty refuses
        } else if (state == State.TRAILER) {
          state = l.isEmpty() ? State.BETWEEN : State.TRAILER;
        } else if (requestLine) {
          requestLine = false;
          currentRequestLine = l;
        } else if (l.isEmpty()) {
          headEnded();
        } else {
          field(l);
        }
      }
      case CHUNK_SIZE -> chunkSize(b);
      case CHUNK_EXTENSION -> {
        if (b == '\r') {
          state = State.CHUNK_SIZE_LF;
        } else if (b == '\n') {
          state = State.STOPPED;
        }
      }
      case CHUNK_SIZE_LF -> {
        if (b != '\n') {
          state = State.STOPPED;
        } else if (chunkSize == 0) {
          state = State.TRAILER;
        } else {
          remaining = chunkSize;
          state = State.CHUNK_DATA;
        }
      }
      case CHUNK_DATA_CR -> state = b == '\r' ? State.CHUNK_DATA_LF : State.STOPPED;
      case CHUNK_DATA_LF -> {
        if (b == '\n') {
          startChunk();
        } else {
          state = State.STOPPED;
        }
      }
      default -> state = State.STOPPED;
    }
  }

  private void chunkSize(int b) {
    int digit = Character.digit(b, 16);
    if (digit >= 0) {
      sizeDigits = true;
      // Held below overflow; long before that it is past any body limit a server sets.
      chunkSize = Math.min(chunkSize, Long.MAX_VALUE / 32) * 16 + digit;
      if (declared + chunkSize > maxBodyBytes) {
        overOrdinal = heads;
        overRequestLine = currentRequestLine;
        overDeclared = declared + chunkSize;
        state = State.STOPPED;
      }
    } else if (b == ';' && sizeDigits) {
      declared += chunkSize;
      state = State.CHUNK_EXTENSION;
    } else if (b == '\r' && sizeDigits) {
      declared += chunkSize;
      state = State.CHUNK_SIZE_LF;
    } else {
      state = State.STOPPED;
    }
  }

  private void startChunk() {
    chunkSize = 0;
    sizeDigits = false;
    state = State.CHUNK_SIZE;
  }

  private void field(String l) {
    int colon = l.indexOf(':');
    if (colon <= 0) {
      state = State.STOPPED;
      return;
    }
    String name = l.substring(0, colon).toLowerCase(Locale.ROOT);
    String value = l.substring(colon + 1).strip();
    if (name.equals("content-length")) {
      if (contentLength >= 0 || value.isEmpty() || !value.chars().allMatch(Character::isDigit)) {
        state = State.STOPPED;
        return;
      }
      try {
        contentLength = Long.parseLong(value);
      } catch (NumberFormatException tooLarge) {
        state = State.STOPPED;
      }
    } else if (name.equals("transfer-encoding")) {
      transferEncoding = transferEncoding + "," + value;
    }
  }

  private void headEnded() {
    heads++;
    if (!transferEncoding.isEmpty()) {
      String[] codings = transferEncoding.split(",", -1);
      String last = "";
      for (String c : codings) {
        if (!c.isBlank()) {
          last = c.strip();
        }
      }
      if (!last.equalsIgnoreCase("chunked") || contentLength >= 0) {
        state = State.STOPPED;
        return;
      }
      declared = 0;
      startChunk();
    } else if (contentLength > 0) {
      remaining = contentLength;
      state = State.LENGTH_BODY;
    } else {
      state = State.BETWEEN;
    }
  }
}
