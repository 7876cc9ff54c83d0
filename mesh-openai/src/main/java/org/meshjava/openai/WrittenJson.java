package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import java.util.Objects;

/**
 * A JSON value written straight onto the generator that renders the document holding it, rather
 * than built as a tree first: a served reply (its usage, its energy object, the receipt in it) is
 * rendered once per serve, and building its nodes (a map per object, a node per value) cost about
 * as much as writing them. The bytes are those the same values as a tree render to ({@link
 * JsonBytes}: the same generator writes them).
 *
 * <p>In a tree it is a {@link POJONode}: {@link JsonBytes#of} and {@code toString()} render it as
 * written, but it has no fields to read.
 *
 * @param writing what writes the value, exactly one JSON value each time it runs
 */
record WrittenJson(Writing writing) implements JsonSerializable {

  /** Writes one JSON value. */
  @FunctionalInterface
  interface Writing {
    /**
     * Writes the value onto {@code g}.
     *
     * @param serializers for a tree written inside the value ({@link JsonNode#serialize})
     */
    void write(JsonGenerator g, SerializerProvider serializers) throws IOException;
  }

  WrittenJson {
    Objects.requireNonNull(writing, "writing");
  }

  /** A node that renders as {@code writing} writes. */
  static JsonNode node(Writing writing) {
    return new POJONode(new WrittenJson(writing));
  }

  @Override
  public void serialize(JsonGenerator g, SerializerProvider serializers) throws IOException {
    writing.write(g, serializers);
  }

  @Override
  public void serializeWithType(
      JsonGenerator g, SerializerProvider serializers, TypeSerializer typeSer) throws IOException {
    serialize(g, serializers);
  }
}
