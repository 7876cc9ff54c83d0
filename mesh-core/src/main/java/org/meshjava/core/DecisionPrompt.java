package org.meshjava.core;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A typed decision as prompt text (§3.6): the questions and the state under judgement, before any
 * engine has tokenized them. Its {@link #text()} is the schema followed by the state, so the
 * request's {@code prompt_hash} covers the questions themselves and not only their count, and a
 * grant signed for the request cannot be spent on other questions.
 *
 * <p>Schema bytes, per question in order: a header line {@code <kind> <options> <length>}, where
 * kind is {@code proposition}, {@code choice} or {@code score}, options the number of allowed
 * answers and length the UTF-8 byte length of the question text; the text and a newline; then per
 * option its byte length, a newline, the option and a newline. The form is unambiguous for any
 * text. Its length is the request's {@code schema_tokens} and the whole text's length its {@code
 * prompt_tokens} (byte-level counts, the same whichever engine serves). See SPEC.md §Decisions.
 *
 * @param questions the typed questions, in order, at least one
 * @param state the state under judgement
 */
public record DecisionPrompt(List<DecisionQuestion> questions, PromptText state) {

  /** Validates and copies. */
  public DecisionPrompt {
    questions = List.copyOf(questions);
    Objects.requireNonNull(state, "state");
    if (questions.isEmpty()) {
      throw new IllegalArgumentException("a decision has at least one question");
    }
  }

  /** The canonical schema bytes of {@code questions}. */
  public static byte[] schema(List<? extends DecisionQuestion> questions) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (DecisionQuestion q : questions) {
      String kind =
          switch (q) {
            case DecisionQuestion.Proposition p -> "proposition";
            case DecisionQuestion.Choice c -> "choice";
            case DecisionQuestion.Score s -> "score";
          };
      byte[] text = q.text().getBytes(StandardCharsets.UTF_8);
      out.writeBytes(
          (kind + " " + q.optionCount() + " " + text.length + "\n")
              .getBytes(StandardCharsets.UTF_8));
      out.writeBytes(text);
      out.write('\n');
      for (String option : q.options()) {
        byte[] o = option.getBytes(StandardCharsets.UTF_8);
        out.writeBytes((o.length + "\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(o);
        out.write('\n');
      }
    }
    return out.toByteArray();
  }

  /** The prompt text: the schema bytes, then the state's bytes. */
  public PromptText text() {
    byte[] schema = schema(questions);
    byte[] s = state.bytes();
    byte[] all = java.util.Arrays.copyOf(schema, schema.length + s.length);
    System.arraycopy(s, 0, all, schema.length, s.length);
    return PromptText.of(all);
  }

  /** The request's decision shape: the questions, their options, and the schema's byte length. */
  public DecisionShape shape() {
    return DecisionQuestion.shapeOf(questions, schema(questions).length);
  }
}
