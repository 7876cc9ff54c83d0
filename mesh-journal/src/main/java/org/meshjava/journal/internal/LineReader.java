package org.meshjava.journal.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Reads newline-terminated lines from a range of a file with positional reads, a chunk at a time,
 * so a journal of any length streams in bounded memory and the channel's own position (and any lock
 * on it) is left alone. A line is at most {@link #MAX_LINE_BYTES}: a record is kilobytes, so a
 * longer one is damage, refused with {@link TooLong} before it is held. Not thread-safe; one reader
 * per read.
 */
public final class LineReader {
  private static final int CHUNK = 1 << 20;

  /** The longest line read; a record line is a few kilobytes, one with a grant chain tens. */
  public static final int MAX_LINE_BYTES = 64 << 20;

  private final FileChannel channel;
  private final long end;
  private final ByteBuffer buf = ByteBuffer.allocate(CHUNK);
  private long bufAt;
  private int pos;
  private int limit;
  private long lineStart;

  /** Reads the lines in {@code [start, end)}; a final line without a newline is not returned. */
  public LineReader(FileChannel channel, long start, long end) {
    this.channel = channel;
    this.end = end;
    this.bufAt = start;
    this.lineStart = start;
  }

  /** The byte offset where the line {@link #next()} returns next starts. */
  public long offset() {
    return lineStart;
  }

  /** The next whole line without its newline, or null at the end of the range. */
  public byte @Nullable [] next() throws IOException {
    ByteArrayOutputStream carry = null;
    while (true) {
      for (int i = pos; i < limit; i++) {
        if (buf.get(i) == '\n') {
          byte[] line;
          if (carry == null) {
            line = Arrays.copyOfRange(buf.array(), pos, i);
          } else {
            carry.write(buf.array(), pos, i - pos);
            line = carry.toByteArray();
          }
          checkLength(lineStart, line.length);
          pos = i + 1;
          lineStart += line.length + 1;
          return line;
        }
      }
      if (limit > pos) {
        if (carry == null) {
          carry = new ByteArrayOutputStream(2 * CHUNK);
        }
        checkLength(lineStart, (long) carry.size() + limit - pos);
        carry.write(buf.array(), pos, limit - pos);
      }
      if (!fill()) {
        return null;
      }
    }
  }

  /**
   * Refuses a line of {@code length} bytes starting at byte {@code start} if it is longer than
   * {@link #MAX_LINE_BYTES}.
   */
  public static void checkLength(long start, long length) throws TooLong {
    if (length > MAX_LINE_BYTES) {
      throw new TooLong(
          "the line at byte " + start + " is longer than " + MAX_LINE_BYTES + " bytes");
    }
  }

  /** A line longer than {@link #MAX_LINE_BYTES}: not a record this project writes. */
  public static final class TooLong extends IOException {
    private static final long serialVersionUID = 1L;

    TooLong(String message) {
      super(message);
    }
  }

  /** Skips one whole line; false at the end of the range. */
  public boolean skip() throws IOException {
    long skipped = 0;
    while (true) {
      for (int i = pos; i < limit; i++) {
        if (buf.get(i) == '\n') {
          skipped += i - pos;
          pos = i + 1;
          lineStart += skipped + 1;
          return true;
        }
      }
      skipped += limit - pos;
      pos = limit;
      if (!fill()) {
        return false;
      }
    }
  }

  /**
   * Reads from {@code channel} at {@code at} into {@code buf} until it is full or the file ends,
   * with positional reads, so the channel's own position is left alone; returns the bytes read.
   */
  public static int readFully(FileChannel channel, ByteBuffer buf, long at) throws IOException {
    int n = 0;
    while (buf.hasRemaining()) {
      int r = channel.read(buf, at + n);
      if (r < 0) {
        break;
      }
      n += r;
    }
    return n;
  }

  private boolean fill() throws IOException {
    long at = bufAt + limit;
    if (at >= end) {
      return false;
    }
    bufAt = at;
    buf.clear();
    buf.limit((int) Math.min(CHUNK, end - at));
    int n = readFully(channel, buf, at);
    pos = 0;
    limit = n;
    return n > 0;
  }
}
