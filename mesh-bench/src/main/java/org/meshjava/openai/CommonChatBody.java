package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.internal.WellFormedText;

/**
 * A candidate, measured and not landed (mesh-bench/README.md, session 34): a chat completions body
 * of the common shape read in one streaming pass of Jackson's parser, the request it is served as
 * and its prompt text derived as it goes, with no JSON tree. {@code RequestReadBenchmark} holds it
 * beside the binding's own read ({@code Endpoints.read}: a tree, then {@link GrantedServeRequest},
 * {@link UnservedOptions} and {@link DecisionBody} walking it); it saved 0.3 to 5 us of CPU per
 * body, under the 5% of a proxied request's CPU that would pay for a second reader of every body.
 * It lives here, in the binding's package on the class path, so that the figure can be taken again.
 *
 * <p>The design, for whoever takes it further: the reader never refuses. It answers empty for any
 * body it is not sure the tree path would serve exactly as it derives it (a field outside the few
 * it knows, a value of an unexpected type or range, a message with anything beside its role and
 * text, a metadata key written like a mesh key, a parse error, a lone surrogate), and the caller
 * reads that body again as a tree, which refuses in its own words and order. A body it does read
 * gives the same request, canonical prompt text ({@link Prompt#bytes()}) and stream settings as the
 * tree; {@code CommonChatBodyTest} holds the two side by side over the shapes it reads and those it
 * declines. The parser is {@link Endpoints#STRICT}'s, so duplicate keys, nesting depth and number
 * and string lengths meet the same limits; the body must be UTF-8 ({@link Utf8Body}) with nothing
 * after the object.
 *
 * @param settings the body's stream settings
 * @param presentationHex its {@code jcp_presentation}, when it carries one
 * @param request the request it is served as
 * @param prompt its canonical prompt text
 */
record CommonChatBody(
    StreamSettings settings,
    Optional<String> presentationHex,
    ServeRequest request,
    PromptText prompt) {

  /**
   * Reads {@code body}, sent to the chat completions endpoint, when it is of the common shape.
   *
   * @param defaultCeilingUj the server's ceiling for an ungranted body that names none; a granted
   *     body that names none is declined (the tree path refuses it)
   * @return empty when the body is to be read the long way
   */
  static Optional<CommonChatBody> read(byte[] body, long defaultCeilingUj) {
    try {
      Utf8Body.check(body);
    } catch (BindingException e) {
      return Optional.empty();
    }
    try (JsonParser p = Endpoints.STRICT.createParser(body)) {
      return new Reading(body.length).read(p, defaultCeilingUj);
    } catch (IOException | BindingException e) {
      // A parse error, or a value the tree path refuses (a model name, say): its to say.
      return Optional.empty();
    }
  }

  /** One body's fields as they are read. */
  private static final class Reading {
    /** A number field not (yet) read, or JSON null. */
    private static final long ABSENT = -1;

    /** A number field's value the tree path is to read. */
    private static final long DECLINE = -2;

    private Optional<String> model = Optional.empty();
    // ABSENT until read.
    private long maxTokens = ABSENT;
    private long maxCompletionTokens = ABSENT;
    private long promptTokens = ABSENT;
    private long ceiling = ABSENT;
    private Fidelity floor = Fidelity.F0;
    private boolean stream;
    private boolean streamOptions;
    private boolean includeUsage;
    private Optional<String> presentationHex = Optional.empty();
    private boolean messages;

    /** The prompt text written so far. */
    private byte[] text;

    private int at;

    Reading(int bodyLength) {
      // Room for most prompts at once: the text of a body's messages is rarely longer than it.
      text = new byte[Math.max(64, bodyLength)];
    }

    Optional<CommonChatBody> read(JsonParser p, long defaultCeilingUj)
        throws IOException, BindingException {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        if (!field(p.currentName(), p)) {
          return Optional.empty();
        }
      }
      if (p.nextToken() != null || !messages) {
        return Optional.empty();
      }
      if (streamOptions && !stream) {
        return Optional.empty();
      }
      if (maxTokens != ABSENT
          && maxCompletionTokens != ABSENT
          && maxTokens != maxCompletionTokens) {
        return Optional.empty();
      }
      if (ceiling == ABSENT && presentationHex.isPresent()) {
        return Optional.empty();
      }
      byte[] prompt = Arrays.copyOf(text, at);
      long max =
          maxCompletionTokens != ABSENT
              ? maxCompletionTokens
              : maxTokens != ABSENT ? maxTokens : GrantedServeRequest.DEFAULT_MAX_TOKENS;
      ServeRequest request =
          ServeRequest.generation(
              ContentId.ofBytes(prompt),
              promptTokens != ABSENT ? promptTokens : prompt.length,
              new ServeBounds(max, floor, ceiling != ABSENT ? ceiling : defaultCeilingUj));
      return Optional.of(
          new CommonChatBody(
              new StreamSettings(stream, stream && includeUsage),
              presentationHex,
              model.isPresent() ? request.withModel(model.get()) : request,
              PromptText.of(prompt)));
    }

    /** Reads one top-level field's value; false for one the tree path is to read. */
    private boolean field(String name, JsonParser p) throws IOException, BindingException {
      JsonToken t = p.nextToken();
      switch (name) {
        case "messages" -> {
          messages = true;
          return messages(p, t);
        }
        case "model" -> {
          if (t == JsonToken.VALUE_STRING) {
            model = GrantedServeRequest.modelNamed(p.getText());
            return true;
          }
          return t == JsonToken.VALUE_NULL;
        }
        case "max_tokens" -> {
          maxTokens = positiveU32(p, t);
          return maxTokens != DECLINE;
        }
        case "max_completion_tokens" -> {
          maxCompletionTokens = positiveU32(p, t);
          return maxCompletionTokens != DECLINE;
        }
        case "metadata" -> {
          return t == JsonToken.VALUE_NULL || (t == JsonToken.START_OBJECT && metadata(p));
        }
        case "stream" -> {
          stream = t == JsonToken.VALUE_TRUE;
          return t.isBoolean() || t == JsonToken.VALUE_NULL;
        }
        case "stream_options" -> {
          return t == JsonToken.VALUE_NULL || (t == JsonToken.START_OBJECT && streamOptions(p));
        }
        case "jcp_presentation" -> {
          if (t != JsonToken.VALUE_STRING) {
            return false;
          }
          presentationHex = Optional.of(p.getText());
          return true;
        }
        case "n" -> {
          return t == JsonToken.VALUE_NULL
              || (t == JsonToken.VALUE_NUMBER_INT
                  && p.getNumberType() == JsonParser.NumberType.INT
                  && p.getIntValue() == 1);
        }
        case "seed" -> {
          return t == JsonToken.VALUE_NULL
              || (t == JsonToken.VALUE_NUMBER_INT
                  && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER);
        }
        case "logprobs" -> {
          return t == JsonToken.VALUE_NULL || t == JsonToken.VALUE_FALSE;
        }
        // Sampling settings are the backend's own (SPEC.md 70); the tree path checks only that
        // temperature, top_p and the penalties are numbers in OpenAI's range (DecimalField).
        case "temperature" -> {
          return t == JsonToken.VALUE_NULL || inRange(p, t, 0, 2);
        }
        case "top_p" -> {
          return t == JsonToken.VALUE_NULL || inRange(p, t, 0, 1);
        }
        case "frequency_penalty", "presence_penalty" -> {
          return t == JsonToken.VALUE_NULL || inRange(p, t, -2, 2);
        }
        case "user" -> {
          p.skipChildren();
          return true;
        }
        default -> {
          return false;
        }
      }
    }

    /** Whether the current token is a number from {@code min} to {@code max}. */
    private static boolean inRange(JsonParser p, JsonToken t, int min, int max) throws IOException {
      if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
        return false;
      }
      double d = p.getDoubleValue();
      return d >= min && d <= max;
    }

    /**
     * A whole number from 1 to 2^32-1; {@link #ABSENT} for null, {@link #DECLINE} for anything
     * else, which the tree path refuses.
     */
    private static long positiveU32(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NULL) {
        return ABSENT;
      }
      if (t != JsonToken.VALUE_NUMBER_INT
          || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return DECLINE;
      }
      long v = p.getLongValue();
      return v >= 1 && v <= 0xFFFF_FFFFL ? v : DECLINE;
    }

    private boolean streamOptions(JsonParser p) throws IOException {
      streamOptions = true;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        JsonToken t = p.nextToken();
        if (!p.currentName().equals("include_usage")
            || !(t.isBoolean() || t == JsonToken.VALUE_NULL)) {
          return false;
        }
        includeUsage = t == JsonToken.VALUE_TRUE;
      }
      return true;
    }

    /** {@code metadata}'s object: the keys mesh reads, and the caller's own skipped. */
    private boolean metadata(JsonParser p) throws IOException {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        JsonToken t = p.nextToken();
        switch (key) {
          case "prompt_tokens" -> {
            promptTokens = unsigned(p, t, 0xFFFF_FFFFL);
            if (promptTokens == DECLINE) {
              return false;
            }
          }
          case "joule_ceiling_uj" -> {
            ceiling = unsigned(p, t, Long.MAX_VALUE);
            if (ceiling == DECLINE) {
              return false;
            }
          }
          case "fidelity_floor" -> {
            Fidelity f = fidelity(p, t);
            if (f == null) {
              return false;
            }
            floor = f;
          }
          default -> {
            if (MeshMetadataKeys.meantForMesh(key)) {
              return false;
            }
            p.skipChildren();
          }
        }
      }
      return true;
    }

    /**
     * A metadata value from 0 to {@code max}, as a decimal string or a whole number; {@link
     * #ABSENT} for null, {@link #DECLINE} for anything else.
     */
    private static long unsigned(JsonParser p, JsonToken t, long max) throws IOException {
      if (t == JsonToken.VALUE_NULL) {
        return ABSENT;
      }
      long v;
      if (t == JsonToken.VALUE_STRING) {
        v = decimal(p.getText());
      } else if (t == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        v = p.getLongValue();
      } else {
        return DECLINE;
      }
      return v >= 0 && v <= max ? v : DECLINE;
    }

    /** {@code 0} or digits without a leading zero, as a long; -1 for anything else. */
    private static long decimal(String s) {
      if (s.isEmpty() || s.length() > 18 || (s.length() > 1 && s.charAt(0) == '0')) {
        // 18 digits always fit a long; a longer value is the tree path's to read.
        return -1;
      }
      long v = 0;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') {
          return -1;
        }
        v = v * 10 + (c - '0');
      }
      return v;
    }

    /**
     * {@link Fidelity#parse}'s forms, as the binding reads them; F0 for null; null for anything
     * else (a number's text never starts with {@code F}, so only a string can name one).
     */
    private static @Nullable Fidelity fidelity(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NULL) {
        return Fidelity.F0;
      }
      if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT) {
        return null;
      }
      return Fidelity.parse(p.getText()).orElse(null);
    }

    /** {@code messages}: a non-empty array of messages, each written to the prompt text. */
    private boolean messages(JsonParser p, JsonToken t) throws IOException {
      if (t != JsonToken.START_ARRAY) {
        return false;
      }
      int count = 0;
      while (p.nextToken() == JsonToken.START_OBJECT) {
        if (!message(p)) {
          return false;
        }
        count++;
      }
      return p.currentToken() == JsonToken.END_ARRAY && count > 0;
    }

    /** One message of only a role and a text, written to the prompt text. */
    private boolean message(JsonParser p) throws IOException {
      String role = null;
      String content = "";
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        JsonToken t = p.nextToken();
        if (key.equals("role") && t == JsonToken.VALUE_STRING) {
          role = p.getText();
        } else if (key.equals("content") && t == JsonToken.VALUE_STRING) {
          content = p.getText();
        } else if (key.equals("content") && t == JsonToken.START_ARRAY) {
          content = parts(p);
          if (content == null) {
            return false;
          }
        } else if (!(key.equals("content") && t == JsonToken.VALUE_NULL)) {
          return false;
        }
      }
      // A tool's message is refused by the tree path.
      if (role == null || !Prompt.isRole(role) || role.equals("tool") || role.equals("function")) {
        return false;
      }
      return write(role, content);
    }

    /** A content array of text parts, joined; null for any other part. */
    private static @Nullable String parts(JsonParser p) throws IOException {
      StringBuilder joined = new StringBuilder();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String type = null;
        String text = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          if (p.nextToken() != JsonToken.VALUE_STRING) {
            return null;
          }
          if (key.equals("type")) {
            type = p.getText();
          } else if (key.equals("text")) {
            text = p.getText();
          } else {
            return null;
          }
        }
        if (text == null
            || !("text".equals(type) || "input_text".equals(type) || "output_text".equals(type))) {
          return null;
        }
        joined.append(text);
      }
      return p.currentToken() == JsonToken.END_ARRAY ? joined.toString() : null;
    }

    /**
     * Writes one message as {@link Prompt#bytes()} does; false when its text holds a lone
     * surrogate.
     */
    private boolean write(String role, String content) {
      if (WellFormedText.unpairedSurrogate(content) >= 0) {
        return false;
      }
      byte[] utf8 = content.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String header = role + " " + utf8.length + "\n";
      room(header.length() + utf8.length + 1);
      for (int i = 0; i < header.length(); i++) {
        text[at++] = (byte) header.charAt(i);
      }
      System.arraycopy(utf8, 0, text, at, utf8.length);
      at += utf8.length;
      text[at++] = '\n';
      return true;
    }

    private void room(int more) {
      if (at + more > text.length) {
        text = Arrays.copyOf(text, Math.max(text.length * 2, at + more));
      }
    }
  }
}
