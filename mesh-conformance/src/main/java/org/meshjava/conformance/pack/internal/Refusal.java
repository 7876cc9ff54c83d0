package org.meshjava.conformance.pack.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A subject's refusal of an operation: the answer {@code invalid} with a reason and, where the
 * protocol asks for one, further output (the index of a bad chain link, a journal record).
 */
final class Refusal extends Exception {
  private static final long serialVersionUID = 1L;

  private final String reason;
  private final transient ObjectNode output;

  Refusal(String reason, @Nullable String detail) {
    this(reason, detail, JsonNodeFactory.instance.objectNode());
  }

  Refusal(String reason, @Nullable String detail, ObjectNode output) {
    super(detail);
    this.reason = reason;
    this.output = output;
  }

  /**
   * A refusal whose output names where the failure lies, as the fact {@code key} (the index of a
   * bad chain link, a journal record, a CBOR offset), when the failure located it.
   */
  static Refusal locating(String reason, @Nullable String detail, String key, OptionalLong at) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    at.ifPresent(v -> out.put(key, v));
    return new Refusal(reason, detail, out);
  }

  /** {@link #locating(String, String, String, OptionalLong)} for an {@code int} position. */
  static Refusal locating(String reason, @Nullable String detail, String key, OptionalInt at) {
    return locating(
        reason,
        detail,
        key,
        at.isPresent() ? OptionalLong.of(at.getAsInt()) : OptionalLong.empty());
  }

  String reason() {
    return reason;
  }

  ObjectNode output() {
    return output;
  }
}
