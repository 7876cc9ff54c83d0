package org.meshjava.conformance.pack.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

  String reason() {
    return reason;
  }

  ObjectNode output() {
    return output;
  }
}
