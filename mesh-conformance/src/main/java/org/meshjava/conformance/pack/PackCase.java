package org.meshjava.conformance.pack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One case of the conformance pack, in the manner of Wycheproof: an id, a one-line comment, the
 * operation a subject is asked to perform with its input, and the result it must give.
 *
 * <p>A {@code valid} case passes when the subject answers {@code valid} and its output carries
 * every field of {@link #expected} with an equal value. An {@code invalid} case passes when the
 * subject answers {@code invalid} with exactly {@link #reason}, and its output carries every field
 * of {@link #expected} (such as the index of the first bad link of a chain).
 *
 * @param id unique within the pack, {@code <group>/<slug>}
 * @param comment one line saying what the case shows
 * @param op the operation (see {@code conformance/README.md})
 * @param input the operation's input
 * @param result whether the operation must succeed
 * @param reason the reason an invalid case must be refused with; empty for a valid case
 * @param flags labels naming the rule a case exercises, so a subject known to break one rule can be
 *     held to failing exactly the cases that carry its flag
 * @param expected fields the subject's output must carry, with these values
 */
public record PackCase(
    String id,
    String comment,
    String op,
    ObjectNode input,
    Result result,
    Optional<String> reason,
    List<String> flags,
    ObjectNode expected) {

  private static final Pattern ID = Pattern.compile("[a-z0-9-]+/[a-z0-9][a-z0-9-]*");

  /** What the subject must answer. */
  public enum Result {
    /** The operation succeeds. */
    VALID,
    /** The operation is refused, for the stated reason. */
    INVALID;

    /** The wire word: {@code valid} or {@code invalid}. */
    public String wire() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * Validates the case: an invalid case has a reason, a valid one has none; one-line comment. The
   * input and expected objects are copied in.
   *
   * @throws IllegalArgumentException if the id is not {@code <group>/<slug>} in {@code [a-z0-9-]},
   *     the comment is blank or more than one line, or a reason is given for a valid case or
   *     missing for an invalid one
   */
  public PackCase {
    Objects.requireNonNull(id, "id");
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException("case id must be <group>/<slug> in [a-z0-9-]: " + id);
    }
    if (comment.isBlank() || comment.contains("\n")) {
      throw new IllegalArgumentException(id + ": the comment is one non-blank line");
    }
    Objects.requireNonNull(op, "op");
    input = input.deepCopy();
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(reason, "reason");
    if ((result == Result.INVALID) != reason.isPresent()) {
      throw new IllegalArgumentException(id + ": an invalid case, and only one, states a reason");
    }
    flags = List.copyOf(flags);
    expected = expected.deepCopy();
  }

  /**
   * A case the subject must accept, producing {@code expected}: how mesh-java's generator writes
   * the pack, and how a user adds cases of their own to run with {@link PackRunner#run(List,
   * SubjectProcess, java.util.function.Consumer)}.
   *
   * @throws IllegalArgumentException as the constructor
   */
  public static PackCase valid(
      String id,
      String comment,
      String op,
      ObjectNode input,
      ObjectNode expected,
      String... flags) {
    return new PackCase(
        id, comment, op, input, Result.VALID, Optional.empty(), List.of(flags), expected);
  }

  /**
   * A case the subject must refuse with {@code reason}, expecting no output fields (add them with
   * {@link #expecting}).
   *
   * @throws IllegalArgumentException as the constructor
   */
  public static PackCase invalid(
      String id, String comment, String op, ObjectNode input, String reason, String... flags) {
    return new PackCase(
        id,
        comment,
        op,
        input,
        Result.INVALID,
        Optional.of(reason),
        List.of(flags),
        JsonNodeFactory.instance.objectNode());
  }

  /** The same case, also expecting {@code field} = {@code value} in the subject's output. */
  public PackCase expecting(String field, JsonNode value) {
    ObjectNode e = expected.deepCopy();
    e.set(field, value);
    return new PackCase(id, comment, op, input, result, reason, flags, e);
  }

  /** The group part of the id. */
  public String group() {
    return id.substring(0, id.indexOf('/'));
  }

  /** The case as it is written in the pack: the inverse of {@link #fromJson}. */
  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("id", id);
    o.put("comment", comment);
    o.put("op", op);
    o.set("input", input);
    o.put("result", result.wire());
    reason.ifPresent(r -> o.put("reason", r));
    if (!flags.isEmpty()) {
      flags.forEach(o.putArray("flags")::add);
    }
    if (!expected.isEmpty()) {
      o.set("expected", expected);
    }
    return o;
  }

  /**
   * Reads a case as it is written in the pack.
   *
   * @throws IllegalArgumentException if a field is missing or of the wrong kind
   */
  public static PackCase fromJson(JsonNode o) {
    String result = text(o, "result");
    Result r =
        switch (result) {
          case "valid" -> Result.VALID;
          case "invalid" -> Result.INVALID;
          default -> throw new IllegalArgumentException("result is valid or invalid: " + result);
        };
    JsonNode input = o.get("input");
    if (input == null || !input.isObject()) {
      throw new IllegalArgumentException("a case's input is an object");
    }
    JsonNode expected = o.path("expected");
    List<String> flags = new java.util.ArrayList<>();
    o.path("flags").forEach(f -> flags.add(f.asText()));
    return new PackCase(
        text(o, "id"),
        text(o, "comment"),
        text(o, "op"),
        (ObjectNode) input,
        r,
        o.hasNonNull("reason") ? Optional.of(o.get("reason").asText()) : Optional.empty(),
        flags,
        expected.isObject() ? (ObjectNode) expected : JsonNodeFactory.instance.objectNode());
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("a case's '" + field + "' is a string");
    }
    return v.asText();
  }
}
