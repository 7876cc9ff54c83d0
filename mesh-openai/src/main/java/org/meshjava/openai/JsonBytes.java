package org.meshjava.openai;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Renders the JSON the binding sends (whole replies and streamed events) straight to UTF-8 bytes,
 * rather than through {@code JsonNode.toString()}, which writes the characters to a {@code String}
 * that must then be encoded: twice the copying for every body, its receipt JSON included.
 *
 * <p>A character beyond the Basic Multilingual Plane is written as its four UTF-8 bytes, not as an
 * escaped surrogate pair (the byte generator's default). Half a pair, which a client can send
 * escaped and UTF-8 cannot encode, is escaped again (six ASCII characters), so what a client sent
 * reads back unchanged instead of as {@code ?}. Compact output holds no raw line break, so a
 * rendering fits one {@code data:} line of an event stream.
 *
 * <p>Thread-safe.
 */
final class JsonBytes {
  private static final ObjectWriter WRITER =
      JsonMapper.builder()
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          .build()
          .writer();

  private JsonBytes() {}

  /** The compact UTF-8 JSON of {@code node}. */
  static byte[] of(JsonNode node) {
    Flushed out = new Flushed();
    try {
      WRITER.writeValue(out, node);
    } catch (IOException e) {
      // A tree the binding built holds only strings, numbers, booleans and nulls, and the target
      // is memory; nothing in it can fail to render.
      throw new UncheckedIOException(e);
    }
    return out.bytes();
  }

  /**
   * What the generator flushes, kept. Its buffer (8 000 bytes) holds a whole reply unless the reply
   * is long or holds a long string (over about 1 300 characters, which it writes in segments), so a
   * reply usually arrives in one write and is copied once, at its length; {@code writeValueAsBytes}
   * copied it into a builder's growing blocks and then again into the result.
   */
  private static final class Flushed extends OutputStream {
    private byte[] bytes = new byte[0];
    private int length;

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (length == 0) {
        bytes = Arrays.copyOfRange(b, off, off + len);
        length = len;
        return;
      }
      if (length + len > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(length + len, 2 * bytes.length));
      }
      System.arraycopy(b, off, bytes, length, len);
      length += len;
    }

    byte[] bytes() {
      return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
    }
  }
}
