package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.meshjava.core.bytes.ByteValue;

/**
 * A JSON string of a byte value's lowercase hex, for the trees the binding renders: the envelope's
 * hex ({@code usage.energy.envelope_hex}, about 2 KB in every served reply). Jackson writes a
 * string by testing each character for one it must escape; hex has none, so the UTF-8 generator
 * ({@link JsonBytes}) is handed its bytes to copy as they are. The bytes are the same either way.
 *
 * <p>In the tree it is a {@link POJONode} whose {@link JsonNode#asText()} is the hex; a generator
 * that does not write UTF-8 bytes ({@code JsonNode.toString()}'s) gets an ordinary string.
 *
 * @param hex lowercase hex, nothing else: it is written unescaped
 */
record HexText(String hex) implements JsonSerializable {

  /** A node for {@code value}'s hex: lowercase hex by construction, so nothing to escape. */
  static JsonNode of(ByteValue value) {
    return new POJONode(new HexText(value.hex()));
  }

  @Override
  public void serialize(JsonGenerator g, SerializerProvider serializers) throws IOException {
    if (g instanceof UTF8JsonGenerator) {
      byte[] ascii = hex.getBytes(StandardCharsets.ISO_8859_1);
      g.writeRawUTF8String(ascii, 0, ascii.length);
    } else {
      g.writeString(hex);
    }
  }

  @Override
  public void serializeWithType(
      JsonGenerator g, SerializerProvider serializers, TypeSerializer typeSer) throws IOException {
    serialize(g, serializers);
  }

  /** The hex itself: what the node's {@code asText()} answers. */
  @Override
  public String toString() {
    return hex;
  }
}
