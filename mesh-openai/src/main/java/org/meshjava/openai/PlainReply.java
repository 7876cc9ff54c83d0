package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * What {@link UpstreamEngine} reads from a whole chat completion, {@code
 * choices[0].message.content} and {@code usage}'s two counts, read with a streaming parser, for a
 * reply of the plain shape only.
 *
 * <p>Design note. Reading the reply as a tree built a map per object and a node per value (the
 * upstream's id, its choice's fields, its usage) only to read three of them: about 4 KB of garbage
 * per proxied serve. Here the parser skips what is not read. The tree stays the rule: anything this
 * reader does not take as plainly right (a body that is not JSON, a part missing or of another
 * type, a count that is not a u32, a key given twice, text after the reply, an {@code error} that
 * is not null, a second choice or an index other than 0, a finish reason this server does not pass
 * on, a tool call, function call or refusal that is not empty) gives null, and the caller reads the
 * body as a tree, whose refusal then names the fault as before. So a reply is read the same either
 * way, and only the common one is read here.
 */
final class PlainReply {
  private static final long U32_MAX = 0xFFFF_FFFFL;

  private PlainReply() {}

  /** The three fields of a plain reply. */
  record Fields(String content, long promptTokens, long completionTokens) {}

  /**
   * The fields of {@code body}, parsed with {@code json} (the tree's own factory, so the same read
   * limits apply), when it is a plain reply; otherwise null.
   */
  static @Nullable Fields read(JsonFactory json, byte[] body) {
    try (JsonParser p = json.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      String content = null;
      long[] counts = null;
      boolean choices = false;
      boolean usage = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("choices".equals(name)) {
          if (choices) {
            return null;
          }
          choices = true;
          content = firstContent(p, value);
        } else if ("usage".equals(name)) {
          if (usage) {
            return null;
          }
          usage = true;
          counts = counts(p, value);
        } else if ("error".equals(name) && value != JsonToken.VALUE_NULL) {
          // An error beside the reply's parts: the tree fails it (UpstreamEngine.requireNoError).
          return null;
        } else {
          p.skipChildren();
        }
        if ((choices && content == null) || (usage && counts == null)) {
          return null;
        }
      }
      // Anything after the reply's object is a second reading of it, which the tree refuses.
      if (p.nextToken() != null) {
        return null;
      }
      return content == null || counts == null ? null : new Fields(content, counts[0], counts[1]);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** {@code choices[0].message.content} when {@code value} starts such an array; else null. */
  private static @Nullable String firstContent(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY || p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String content = null;
    boolean message = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if ("message".equals(name)) {
        if (message || v != JsonToken.START_OBJECT) {
          return null;
        }
        message = true;
        content = messageContent(p);
        if (content == null) {
          return null;
        }
      } else if ("index".equals(name)) {
        // One choice is asked for; another index is the tree's to refuse.
        if (v != JsonToken.VALUE_NULL
            && (v != JsonToken.VALUE_NUMBER_INT || p.getLongValue() != 0)) {
          return null;
        }
      } else if ("finish_reason".equals(name)) {
        if (v == JsonToken.VALUE_STRING
            && UpstreamEngine.UNSERVED_FINISH_REASONS.contains(p.getText())) {
          return null;
        }
      } else {
        p.skipChildren();
      }
    }
    // A second choice is the tree's to refuse.
    return p.nextToken() == JsonToken.END_ARRAY ? content : null;
  }

  /** The message's {@code content} when it is given once, as text; else null. */
  private static @Nullable String messageContent(JsonParser p) throws IOException {
    String content = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if ("content".equals(name)) {
        if (content != null || v != JsonToken.VALUE_STRING) {
          return null;
        }
        content = p.getText();
      } else if (UpstreamEngine.NO_PLAIN_ANSWER_FIELDS.contains(name)) {
        // A tool call or a refusal is the tree's to refuse; the empty ones that servers send with
        // every reply (vLLM's "tool_calls": []) are read here.
        if (!empty(p, v)) {
          return null;
        }
      } else {
        p.skipChildren();
      }
    }
    return content;
  }

  /** Whether the value at the parser is null, an empty list or object, or an empty string. */
  private static boolean empty(JsonParser p, JsonToken v) throws IOException {
    return switch (v) {
      case VALUE_NULL -> true;
      case VALUE_STRING -> p.getTextLength() == 0;
      case START_ARRAY -> p.nextToken() == JsonToken.END_ARRAY;
      case START_OBJECT -> p.nextToken() == JsonToken.END_OBJECT;
      default -> false;
    };
  }

  /** {@code prompt_tokens} and {@code completion_tokens}, each once and a u32; else null. */
  private static long @Nullable [] counts(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      return null;
    }
    long prompt = -1;
    long completion = -1;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      boolean isPrompt = "prompt_tokens".equals(name);
      if (isPrompt || "completion_tokens".equals(name)) {
        if ((isPrompt ? prompt : completion) >= 0) {
          return null;
        }
        long n = u32(p, v);
        if (n < 0) {
          return null;
        }
        if (isPrompt) {
          prompt = n;
        } else {
          completion = n;
        }
      } else {
        p.skipChildren();
      }
    }
    return prompt < 0 || completion < 0 ? null : new long[] {prompt, completion};
  }

  /** The integer at the parser when it is a u32; else -1. */
  private static long u32(JsonParser p, JsonToken v) throws IOException {
    if (v != JsonToken.VALUE_NUMBER_INT
        || (p.getNumberType() != JsonParser.NumberType.INT
            && p.getNumberType() != JsonParser.NumberType.LONG)) {
      return -1;
    }
    long n = p.getLongValue();
    return n >= 0 && n <= U32_MAX ? n : -1;
  }
}
