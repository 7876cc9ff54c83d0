package org.meshjava.journal.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotHeader;

/**
 * Walks a snapshot's CBOR (SPEC.md §60.8, "Encoding") from its start to the four fields of its
 * {@link SnapshotHeader}, skipping every other value by its length: the receipt ids, the tree's
 * levels and the spent pairs are each one byte string, passed over without being read, so the bytes
 * read grow with the open reservations, accounts and unsettled debits that come before the position
 * in the body's canonical key order, not with the receipts. Reads through a small buffer at
 * explicit offsets ({@link SnapshotBytes}: a file, or a database row read a slice at a time), so a
 * snapshot larger than one {@link ByteBuffer} can map is read too, and a remote one is never
 * fetched whole. Internal to the snapshot stores (a public entry in the API package would have made
 * this plumbing part of what an application may call).
 */
public final class SnapshotHeaderReader {
  private static final int BUFFER = 1 << 16;

  /** Nesting past this is no snapshot's (its deepest value is an item of a ledger's array). */
  private static final int MAX_DEPTH = 8;

  /** No key of the format is longer; a longer one is not read into memory. */
  private static final int MAX_KEY = 32;

  /** A did:key is well under this; a longer text is not read into memory. */
  private static final int MAX_STEWARD = 512;

  private final SnapshotBytes file;
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER).limit(0);
  private long bufferAt;
  private long at;
  private long end;

  private SnapshotHeaderReader(long size, SnapshotBytes file) {
    if (size < 0) {
      throw new IllegalArgumentException("a size is not negative: " + size);
    }
    this.file = file;
    this.end = size;
  }

  /**
   * Reads the header of a snapshot of {@code size} bytes that {@code bytes} reads, from its start:
   * the large byte strings before the header's fields are skipped by their lengths, never asked of
   * {@code bytes}, so what is read grows with the snapshot's small sections, not its receipts.
   *
   * @throws SnapshotException {@code MALFORMED} if the bytes do not hold a snapshot's header
   * @throws IOException if {@code bytes} cannot read them
   */
  public static SnapshotHeader read(long size, SnapshotBytes bytes)
      throws SnapshotException, IOException {
    return new SnapshotHeaderReader(size, Objects.requireNonNull(bytes, "bytes")).header();
  }

  private SnapshotHeader header() throws SnapshotException, IOException {
    if (argument(4) != 2) {
      throw malformed("not an array of 2 items");
    }
    long body = argument(2);
    if (body > end - at) {
      throw malformed("its body runs past the end of the snapshot");
    }
    end = at + body; // the header's fields are inside the body
    long pairs = argument(5);
    Long format = null;
    String steward = null;
    JournalPosition position = null;
    long[] counts = null;
    for (long i = 0; i < pairs; i++) {
      String key = text(MAX_KEY, "key");
      switch (key) {
        case "format" -> format = argument(0);
        case "steward" -> steward = text(MAX_STEWARD, "steward");
        case "counts" -> {
          if (argument(4) != 2) {
            throw malformed("counts is not an array of 2 items");
          }
          counts = new long[] {argument(0), argument(0)};
        }
        case "position" -> position = position();
        default -> skip(0);
      }
      if (format != null && steward != null && position != null && counts != null) {
        try {
          return new SnapshotHeader(format, DidKey.parse(steward), position, counts[0], counts[1]);
        } catch (DidKeyException | IllegalArgumentException e) {
          throw malformed("invalid header: " + e.getMessage());
        }
      }
    }
    throw malformed("the body lacks one of format, steward, position and counts");
  }

  private JournalPosition position() throws SnapshotException, IOException {
    if (argument(4) != 3) {
      throw malformed("position is not an array of 3 items");
    }
    long count = argument(0);
    long length = argument(2);
    if (length != 0 && length != ContentId.LENGTH) {
      throw malformed("position hash is " + length + " bytes, not 32 or 0");
    }
    Optional<ContentId> hash =
        length == 0 ? Optional.empty() : Optional.of(ContentId.fromDigest(bytes((int) length)));
    long locator;
    if (peek() >>> 5 == 1) {
      argument(1);
      locator = -1; // any negative locator means none, as the decoder reads it
    } else {
      locator = argument(0);
    }
    try {
      return new JournalPosition(count, hash, Math.max(-1, locator));
    } catch (IllegalArgumentException e) {
      throw malformed("invalid position: " + e.getMessage());
    }
  }

  /** Skips one whole value, whatever it is. */
  private void skip(int depth) throws SnapshotException, IOException {
    if (depth > MAX_DEPTH) {
      throw malformed("nested deeper than a snapshot is");
    }
    int major = peek() >>> 5;
    long n = argument(major);
    switch (major) {
      case 2, 3 -> move(n);
      case 4 -> {
        for (long i = 0; i < n; i++) {
          skip(depth + 1);
        }
      }
      case 5 -> {
        for (long i = 0; i < n; i++) {
          skip(depth + 1);
          skip(depth + 1);
        }
      }
      case 6 -> skip(depth + 1);
      default -> {} // an integer or a simple value: nothing follows its head
    }
  }

  /** A text string of at most {@code max} bytes. */
  private String text(int max, String what) throws SnapshotException, IOException {
    long n = argument(3);
    if (n > max) {
      throw malformed(what + " is " + n + " bytes long");
    }
    return new String(bytes((int) n), StandardCharsets.UTF_8);
  }

  /**
   * The argument of the head at the cursor, which must be of {@code major} type: the value of an
   * integer, the length of a string, the item count of an array or map. Indefinite lengths are not
   * canonical.
   */
  private long argument(int major) throws SnapshotException, IOException {
    int head = u8();
    if (head >>> 5 != major) {
      throw malformed("major type " + (head >>> 5) + " where " + major + " belongs");
    }
    int info = head & 0x1f;
    long value =
        switch (info) {
          case 24 -> u8();
          case 25 -> (long) u8() << 8 | u8();
          case 26 -> uint(4);
          case 27 -> uint(8);
          default -> {
            if (info > 27) {
              throw malformed("an indefinite or reserved length");
            }
            yield info;
          }
        };
    if (value < 0) {
      throw malformed("an argument past 2^63");
    }
    return value;
  }

  private long uint(int bytes) throws SnapshotException, IOException {
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v = v << 8 | u8();
    }
    return v;
  }

  private byte[] bytes(int n) throws SnapshotException, IOException {
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = (byte) u8();
    }
    return out;
  }

  private int peek() throws SnapshotException, IOException {
    int b = u8();
    at--;
    return b;
  }

  private int u8() throws SnapshotException, IOException {
    if (at >= end) {
      throw malformed("it ends inside its header");
    }
    if (at < bufferAt || at >= bufferAt + buffer.limit()) {
      fill();
    }
    return buffer.get((int) (at++ - bufferAt)) & 0xff;
  }

  private void move(long n) throws SnapshotException {
    if (n > end - at) {
      throw malformed("a value runs past the end of its body");
    }
    at += n;
  }

  private void fill() throws IOException {
    buffer.clear();
    bufferAt = at;
    // Never past the end: a store that reads by slices need not be asked for bytes it lacks.
    buffer.limit((int) Math.min(BUFFER, end - bufferAt));
    while (buffer.hasRemaining()) {
      int read = file.read(buffer, bufferAt + buffer.position());
      if (read <= 0) {
        break;
      }
    }
    buffer.flip();
    if (!buffer.hasRemaining()) {
      throw new EOFException("the snapshot ended at byte " + at);
    }
  }

  private static SnapshotException malformed(String detail) {
    return new SnapshotException(
        SnapshotException.Reason.MALFORMED, "its header cannot be read: " + detail, null);
  }
}
