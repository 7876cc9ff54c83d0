package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

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
    try {
      return WRITER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      // A tree the binding built holds only strings, numbers, booleans and nulls; nothing in it
      // can fail to render.
      throw new UncheckedIOException(e);
    }
  }
}
