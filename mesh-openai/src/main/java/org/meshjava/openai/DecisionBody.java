package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionQuestion;

/**
 * A typed decision (§3.6) asked over the binding, in one of two shapes (SPEC.md 70, Typed
 * decisions):
 *
 * <ul>
 *   <li>the mesh extension field {@code mesh_decision}: {@code {"questions": [{"kind":
 *       "proposition"|"choice"|"score", "text", "options" (choice) | "rubric" (score), "key"?}]}};
 *   <li>OpenAI's structured output, {@code response_format} (chat) or {@code text.format}
 *       (responses) of type {@code json_schema}, whose schema is an object of properties each a
 *       {@code boolean} (a proposition) or a {@code string} {@code enum} (a choice over its
 *       values), asked in the schema's property order.
 * </ul>
 *
 * <p>The state under judgement is the body's prompt text. The reply's content is a JSON object with
 * one member per question, its key the property name (or the extension's key, else the question's
 * index): the most probable option, as a boolean for a proposition, else as the option's string; so
 * it satisfies the schema. Immutable.
 *
 * <p>Every question's text and option (and an extension key) must be well-formed Unicode, as a
 * prompt's text must: they enter the request id through the decision prompt's UTF-8, where a lone
 * surrogate would become {@code ?} and give distinct bodies one id, so one presentation for both.
 *
 * @param keys the member name of each question's answer
 * @param questions the typed questions, in order
 */
record DecisionBody(List<String> keys, List<DecisionQuestion> questions) {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Set<String> SCHEMA_WORDS =
      Set.of(
          "type",
          "properties",
          "required",
          "additionalProperties",
          "title",
          "description",
          "$schema");
  private static final Set<String> PROPERTY_WORDS = Set.of("type", "enum", "description", "title");

  DecisionBody {
    keys = List.copyOf(keys);
    questions = List.copyOf(questions);
  }

  /**
   * The decision a body asks, if it asks one.
   *
   * @throws BindingException {@code INVALID_FIELD} for a malformed extension field or both shapes
   *     at once, {@code UNSUPPORTED_SCHEMA} for a structured output that is no typed decision
   */
  static Optional<DecisionBody> of(JsonNode body, GrantedServeRequest.Endpoint endpoint)
      throws BindingException {
    Optional<DecisionBody> extension = extension(body.get("mesh_decision"));
    Optional<DecisionBody> schema = schema(body, endpoint);
    if (extension.isPresent() && schema.isPresent()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "mesh_decision",
          "ask a decision with mesh_decision or with a json_schema response format, not both");
    }
    return extension.isPresent() ? extension : schema;
  }

  private static Optional<DecisionBody> extension(JsonNode field) throws BindingException {
    if (field == null || field.isNull()) {
      return Optional.empty();
    }
    JsonNode qs = field.get("questions");
    if (!field.isObject() || qs == null || !qs.isArray() || qs.isEmpty()) {
      throw invalid(
          "mesh_decision.questions", "mesh_decision must be {\"questions\": [...]}, at least one");
    }
    List<String> keys = new ArrayList<>();
    List<DecisionQuestion> questions = new ArrayList<>();
    for (int i = 0; i < qs.size(); i++) {
      String path = "mesh_decision.questions[" + i + "]";
      JsonNode q = qs.get(i);
      String kind = text(q, "kind", path);
      String text = text(q, "text", path);
      JsonNode key = q.get("key");
      if (key != null && !key.isNull() && !key.isTextual()) {
        throw invalid(path + ".key", path + ".key must be a string");
      }
      keys.add(
          key == null || key.isNull()
              ? Integer.toString(i)
              : Prompt.wellFormed(key.asText(), path + ".key"));
      try {
        questions.add(
            switch (kind) {
              case "proposition" -> new DecisionQuestion.Proposition(text);
              case "choice" ->
                  new DecisionQuestion.Choice(text, strings(q.get("options"), path + ".options"));
              case "score" ->
                  new DecisionQuestion.Score(text, strings(q.get("rubric"), path + ".rubric"));
              default -> throw invalid(path + ".kind", "kind is proposition, choice or score");
            });
      } catch (IllegalArgumentException e) {
        throw invalid(path, path + ": " + e.getMessage());
      }
    }
    return Optional.of(checked(keys, questions, "mesh_decision"));
  }

  private static Optional<DecisionBody> schema(JsonNode body, GrantedServeRequest.Endpoint endpoint)
      throws BindingException {
    String param;
    String schemaPath;
    JsonNode format;
    JsonNode schema;
    if (endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS) {
      param = "response_format";
      schemaPath = "response_format.json_schema.schema";
      format = body.get("response_format");
      schema = format == null ? null : format.path("json_schema").get("schema");
    } else {
      param = "text.format";
      schemaPath = "text.format.schema";
      format = body.path("text").get("format");
      schema = format == null ? null : format.get("schema");
    }
    if (format == null || format.isNull() || format.path("type").asText().equals("text")) {
      return Optional.empty();
    }
    if (!format.path("type").asText().equals("json_schema")) {
      throw unsupported(
          param,
          param
              + " of type '"
              + format.path("type").asText()
              + "' is not served; use json_schema with boolean or string-enum properties, or text");
    }
    if (schema == null || !schema.isObject() || !"object".equals(schema.path("type").asText())) {
      throw unsupported(param, "the json_schema must be an object schema");
    }
    for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
      String word = it.next();
      if (!SCHEMA_WORDS.contains(word)) {
        throw unsupported(
            param, "the json_schema uses '" + word + "', which no typed decision expresses");
      }
    }
    JsonNode properties = schema.get("properties");
    if (properties == null || !properties.isObject() || properties.isEmpty()) {
      throw unsupported(param, "the json_schema must have at least one property");
    }
    List<String> keys = new ArrayList<>();
    List<DecisionQuestion> questions = new ArrayList<>();
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      String name = p.getKey();
      String propertyPath = schemaPath + ".properties." + name;
      JsonNode prop = p.getValue();
      for (Iterator<String> words = prop.fieldNames(); words.hasNext(); ) {
        String word = words.next();
        if (!PROPERTY_WORDS.contains(word)) {
          throw unsupported(
              param,
              "property '"
                  + name
                  + "' uses '"
                  + word
                  + "'; only boolean and string-enum properties are asked as decisions");
        }
      }
      // A property's name needs no check: the JSON parser refuses a lone surrogate in a key.
      String text =
          prop.path("description").isTextual() && !prop.get("description").asText().isBlank()
              ? Prompt.wellFormed(prop.get("description").asText(), propertyPath + ".description")
              : name;
      String type = prop.path("type").asText("");
      try {
        if (type.equals("boolean") && !prop.has("enum")) {
          questions.add(new DecisionQuestion.Proposition(text));
        } else if ((type.equals("string") || !prop.has("type")) && prop.path("enum").isArray()) {
          List<String> options = new ArrayList<>();
          for (JsonNode o : prop.get("enum")) {
            if (!o.isTextual()) {
              throw unsupported(
                  param, "property '" + name + "' has an enum value that is not a string");
            }
            options.add(
                Prompt.wellFormed(o.asText(), propertyPath + ".enum[" + options.size() + "]"));
          }
          questions.add(new DecisionQuestion.Choice(text, options));
        } else {
          throw unsupported(
              param,
              "property '"
                  + name
                  + "' is neither a boolean nor a string enum, so it cannot be asked as a decision");
        }
      } catch (IllegalArgumentException e) {
        throw unsupported(param, "property '" + name + "': " + e.getMessage());
      }
      keys.add(name);
    }
    return Optional.of(checked(keys, questions, param));
  }

  private static DecisionBody checked(
      List<String> keys, List<DecisionQuestion> questions, String param) throws BindingException {
    if (new HashSet<>(keys).size() != keys.size()) {
      throw invalid(param, "two questions share a key");
    }
    return new DecisionBody(keys, questions);
  }

  /** The reply's content: one member per question, the most probable option. */
  String content(List<DecisionAnswer> answers) {
    ObjectNode o = NODES.objectNode();
    for (int i = 0; i < questions.size(); i++) {
      DecisionQuestion q = questions.get(i);
      String best = q.options().get(answers.get(i).mostLikely());
      if (q instanceof DecisionQuestion.Proposition) {
        o.put(keys.get(i), Boolean.parseBoolean(best));
      } else {
        o.put(keys.get(i), best);
      }
    }
    return o.toString();
  }

  /**
   * The probabilities beside the content: {@code {"answers": [{key, kind, question, answer,
   * probabilities}]}}.
   */
  ObjectNode probabilities(List<DecisionAnswer> answers) {
    ObjectNode root = NODES.objectNode();
    var list = root.putArray("answers");
    for (int i = 0; i < questions.size(); i++) {
      DecisionQuestion q = questions.get(i);
      ObjectNode a = list.addObject();
      a.put("key", keys.get(i));
      a.put("kind", q.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
      a.put("question", q.text());
      a.put("answer", q.options().get(answers.get(i).mostLikely()));
      ObjectNode p = a.putObject("probabilities");
      for (int o = 0; o < q.optionCount(); o++) {
        p.put(q.options().get(o), answers.get(i).probability(o));
      }
    }
    return root;
  }

  private static String text(JsonNode q, String field, String path) throws BindingException {
    JsonNode v = q == null ? null : q.get(field);
    if (v == null || !v.isTextual()) {
      throw invalid(path + "." + field, path + "." + field + " must be a string");
    }
    return Prompt.wellFormed(v.asText(), path + "." + field);
  }

  private static List<String> strings(JsonNode v, String path) throws BindingException {
    if (v == null || !v.isArray()) {
      throw invalid(path, path + " must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode s : v) {
      if (!s.isTextual()) {
        throw invalid(path, path + " must be an array of strings");
      }
      out.add(Prompt.wellFormed(s.asText(), path + "[" + out.size() + "]"));
    }
    return out;
  }

  private static BindingException invalid(String param, String detail) {
    return new BindingException(BindingException.Reason.INVALID_FIELD, param, detail);
  }

  private static BindingException unsupported(String param, String detail) {
    return new BindingException(BindingException.Reason.UNSUPPORTED_SCHEMA, param, detail);
  }
}
