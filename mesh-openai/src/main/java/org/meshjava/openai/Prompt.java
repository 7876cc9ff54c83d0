package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.core.internal.WellFormedText;

/**
 * The prompt a body asks about, as the binding content-addresses it (§3.1, §2.3): the messages in
 * order, each a role and its text. {@link #bytes()} is the canonical prompt text whose BLAKE3 is
 * the request's {@code prompt_hash}:
 *
 * <pre>
 * for each message:  role ‖ " " ‖ decimal(len(content)) ‖ "\n" ‖ content ‖ "\n"
 * </pre>
 *
 * where {@code content} is the UTF-8 of the message's text and {@code len} its byte length. The
 * length prefix makes the encoding injective (no content can forge a message boundary) and easy to
 * write in any language; see SPEC.md §70.
 *
 * <p>Every text is a sequence of Unicode scalar values. A Java string can hold a lone surrogate
 * (JSON's escape for U+D800 parses to one), which has no UTF-8 encoding: a lossy encoder would
 * write {@code ?} for it, so distinct prompts would share one hash and one presentation would be
 * valid for all of them. Such text is refused here, never converted.
 *
 * <p>Immutable and thread-safe.
 *
 * @param messages the messages in order, at least one
 */
public record Prompt(List<Message> messages) {
  /** The longest role. */
  private static final int MAX_ROLE = 32;

  /** The most digits of a message length in the prompt text. */
  private static final int MAX_LENGTH_DIGITS = 10;

  /**
   * One message.
   *
   * @param role its role: 1–32 of {@code A-Z a-z 0-9 _ -}
   * @param content its text: well-formed Unicode, no lone surrogate
   */
  public record Message(String role, String content) {
    /** Validates the message. */
    public Message {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(content, "content");
      if (!isRole(role)) {
        throw new IllegalArgumentException(
            "a role is 1-32 letters, digits, '_' or '-': '" + role + "'");
      }
      int bad = WellFormedText.unpairedSurrogate(content);
      if (bad >= 0) {
        throw new IllegalArgumentException(
            "message content is not well-formed Unicode: a lone surrogate at char " + bad);
      }
    }
  }

  /**
   * Whether {@code role} is 1–32 of {@code A-Z a-z 0-9 _ -}. A loop, not a pattern: every message
   * of every request is checked, three times on the proxied path (the body's field, its message,
   * and again from the prompt text the upstream engine is handed).
   */
  static boolean isRole(String role) {
    if (role.isEmpty() || role.length() > MAX_ROLE) {
      return false;
    }
    for (int i = 0; i < role.length(); i++) {
      char c = role.charAt(i);
      boolean allowed =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-';
      if (!allowed) {
        return false;
      }
    }
    return true;
  }

  /** Validates and copies. */
  public Prompt {
    messages = List.copyOf(messages);
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a prompt has at least one message");
    }
  }

  /** The canonical prompt text (see the class comment). */
  public byte[] bytes() {
    // Written into one array of its exact size (no growing buffer, no header string per message):
    // this runs for every request, and again on the proxied path to check the text read back.
    byte[][] contents = new byte[messages.size()][];
    int size = 0;
    for (int k = 0; k < contents.length; k++) {
      // Exact: a Message holds no lone surrogate, the one thing getBytes would replace.
      contents[k] = messages.get(k).content().getBytes(StandardCharsets.UTF_8);
      size += messages.get(k).role().length() + 1 + digits(contents[k].length) + 1;
      size += contents[k].length + 1;
    }
    byte[] out = new byte[size];
    int at = 0;
    for (int k = 0; k < contents.length; k++) {
      String role = messages.get(k).role();
      // A role is ASCII (isRole), one byte per char.
      for (int i = 0; i < role.length(); i++) {
        out[at++] = (byte) role.charAt(i);
      }
      out[at++] = ' ';
      int length = contents[k].length;
      int end = at + digits(length);
      for (int i = end - 1; i >= at; i--) {
        out[i] = (byte) ('0' + length % 10);
        length /= 10;
      }
      at = end;
      out[at++] = '\n';
      System.arraycopy(contents[k], 0, out, at, contents[k].length);
      at += contents[k].length;
      out[at++] = '\n';
    }
    return out;
  }

  /** How many decimal digits {@code n} (not negative) has. */
  private static int digits(int n) {
    int d = 1;
    for (long p = 10; p <= n; p *= 10) {
      d++;
    }
    return d;
  }

  /** The request's {@code prompt_hash}: BLAKE3 of {@link #bytes()}. */
  public ContentId hash() {
    return ContentId.ofBytes(bytes());
  }

  /**
   * Reads canonical prompt text back into messages (an upstream engine does this with the payload
   * it is handed).
   *
   * @throws IllegalArgumentException if the bytes are not canonical prompt text
   */
  public static Prompt parse(byte[] bytes) {
    List<Message> out = new ArrayList<>();
    int i = 0;
    while (i < bytes.length) {
      int space = indexOf(bytes, (byte) ' ', i);
      int newline = space < 0 ? -1 : indexOf(bytes, (byte) '\n', space);
      if (space < 0 || newline < 0) {
        throw new IllegalArgumentException("prompt text: no message header at byte " + i);
      }
      String role = new String(bytes, i, space - i, StandardCharsets.US_ASCII);
      long length = length(bytes, space + 1, newline);
      if (length < 0) {
        throw new IllegalArgumentException("prompt text: bad length at byte " + (space + 1));
      }
      long end = newline + 1 + length;
      if (end >= bytes.length || bytes[(int) end] != '\n') {
        throw new IllegalArgumentException("prompt text: message at byte " + i + " is cut short");
      }
      String content = new String(bytes, newline + 1, (int) length, StandardCharsets.UTF_8);
      out.add(new Message(role, content));
      i = (int) end + 1;
    }
    Prompt p = new Prompt(out);
    if (!java.util.Arrays.equals(p.bytes(), bytes)) {
      throw new IllegalArgumentException("prompt text is not canonical (content is not UTF-8)");
    }
    return p;
  }

  /**
   * The message length written in {@code bytes[from, to)}: {@code 0} or 1–10 digits without a
   * leading zero; -1 when it is not that.
   */
  private static long length(byte[] bytes, int from, int to) {
    int n = to - from;
    if (n < 1 || n > MAX_LENGTH_DIGITS || (n > 1 && bytes[from] == '0')) {
      return -1;
    }
    long value = 0;
    for (int k = from; k < to; k++) {
      if (bytes[k] < '0' || bytes[k] > '9') {
        return -1;
      }
      value = value * 10 + (bytes[k] - '0');
    }
    return value;
  }

  private static int indexOf(byte[] b, byte v, int from) {
    for (int k = from; k < b.length; k++) {
      if (b[k] == v) {
        return k;
      }
    }
    return -1;
  }

  /**
   * The prompt of a chat completions body: its {@code messages}, each with a {@code role} and a
   * {@code content} that is a string, null (as the empty text), or an array of text parts joined
   * without a separator.
   *
   * @throws BindingException naming the offending field
   */
  public static Prompt ofChat(JsonNode body) throws BindingException {
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, "messages", "messages must be a non-empty array");
    }
    List<Message> out = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      out.add(message(messages.get(i), "messages[" + i + "]"));
    }
    return new Prompt(out);
  }

  /**
   * The prompt of a responses body: {@code instructions}, when present, as a leading {@code system}
   * message, then {@code input}: a string as one {@code user} message, or an array of messages as
   * in chat.
   *
   * @throws BindingException naming the offending field
   */
  public static Prompt ofResponses(JsonNode body) throws BindingException {
    List<Message> out = new ArrayList<>();
    JsonNode instructions = body.get("instructions");
    if (instructions != null && !instructions.isNull()) {
      if (!instructions.isTextual()) {
        throw new BindingException(
            BindingException.Reason.INVALID_FIELD, "instructions", "instructions must be a string");
      }
      out.add(new Message("system", wellFormed(instructions.asText(), "instructions")));
    }
    JsonNode input = body.get("input");
    if (input != null && input.isTextual()) {
      out.add(new Message("user", wellFormed(input.asText(), "input")));
    } else if (input != null && input.isArray() && !input.isEmpty()) {
      for (int i = 0; i < input.size(); i++) {
        JsonNode item = input.get(i);
        String path = "input[" + i + "]";
        JsonNode type = item.get("type");
        if (type != null && !"message".equals(type.asText())) {
          throw new BindingException(
              BindingException.Reason.UNSUPPORTED,
              path + ".type",
              "only message input items are served, not '" + type.asText() + "'");
        }
        out.add(message(item, path));
      }
    } else {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "input",
          "input must be a string or a non-empty array of messages");
    }
    return new Prompt(out);
  }

  private static Message message(JsonNode m, String path) throws BindingException {
    if (!m.isObject()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, path, path + " must be an object");
    }
    JsonNode role = m.get("role");
    if (role == null || !role.isTextual() || !isRole(role.asText())) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          path + ".role",
          path + ".role must be a role name such as user or system");
    }
    JsonNode content = m.get("content");
    String text;
    if (content == null || content.isNull()) {
      text = "";
    } else if (content.isTextual()) {
      text = content.asText();
    } else if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      for (int k = 0; k < content.size(); k++) {
        JsonNode part = content.get(k);
        String partPath = path + ".content[" + k + "]";
        JsonNode type = part.get("type");
        JsonNode partText = part.get("text");
        if (type == null
            || !(type.asText().equals("text")
                || type.asText().equals("input_text")
                || type.asText().equals("output_text"))) {
          throw new BindingException(
              BindingException.Reason.UNSUPPORTED,
              partPath + ".type",
              "only text content parts are served");
        }
        if (partText == null || !partText.isTextual()) {
          throw new BindingException(
              BindingException.Reason.INVALID_FIELD,
              partPath + ".text",
              partPath + ".text must be a string");
        }
        sb.append(partText.asText());
      }
      text = sb.toString();
    } else {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          path + ".content",
          path + ".content must be a string or an array of text parts");
    }
    return new Message(role.asText(), wellFormed(text, path + ".content"));
  }

  /**
   * Refuses text with a lone surrogate (see the class comment), naming the field: a prompt's, or
   * any other text of a body that enters a request id ({@code model}).
   */
  static String wellFormed(String text, String param) throws BindingException {
    int bad = WellFormedText.unpairedSurrogate(text);
    if (bad >= 0) {
      throw new BindingException(
          BindingException.Reason.INVALID_UNICODE,
          param,
          param
              + " is not well-formed Unicode: a lone surrogate (\\u"
              + String.format(java.util.Locale.ROOT, "%04x", (int) text.charAt(bad))
              + ") at char "
              + bad);
    }
    return text;
  }
}
