package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a body asks of its reply's form: whether it is streamed ({@code stream}), and whether a chat
 * stream sends its usage in a chunk of its own ({@code stream_options.include_usage}). Read in one
 * place because two callers must agree: the endpoint, which reads it before anything else in the
 * body, and {@link GrantedServeRequest#refuseUnserved}, which a caller runs before signing a
 * presentation, so that no body is signed that the endpoint then refuses for these fields.
 *
 * @param stream whether the reply is streamed
 * @param usageChunk whether a chat stream ends with a chunk carrying the usage; false unless {@code
 *     stream}
 */
record StreamSettings(boolean stream, boolean usageChunk) {
  StreamSettings {
    if (usageChunk && !stream) {
      throw new IllegalArgumentException("a usage chunk needs a stream");
    }
  }

  /**
   * Reads the settings of a body sent to {@code endpoint}. A chat body's {@code stream_options}
   * without {@code stream} true is refused, as OpenAI refuses it: it asks something of a stream
   * that will not be sent, so the caller's intent and the reply would disagree. A responses body's
   * is not read.
   *
   * @throws BindingException {@code INVALID_FIELD} naming {@code stream}, {@code stream_options} or
   *     {@code stream_options.include_usage}
   */
  static StreamSettings of(JsonNode body, GrantedServeRequest.Endpoint endpoint)
      throws BindingException {
    boolean stream = flag(body, "stream", "stream");
    JsonNode options = body.get("stream_options");
    if (options == null || options.isNull()) {
      return new StreamSettings(stream, false);
    }
    if (!stream) {
      if (endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS) {
        throw new BindingException(
            BindingException.Reason.INVALID_FIELD,
            "stream_options",
            "stream_options is only allowed with stream true; send stream true or leave"
                + " stream_options out");
      }
      return new StreamSettings(false, false);
    }
    if (!options.isObject()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "stream_options",
          "stream_options must be an object");
    }
    return new StreamSettings(true, flag(options, "include_usage", "stream_options.include_usage"));
  }

  /** The boolean {@code field} of {@code node}, false when absent; {@code param} names it. */
  private static boolean flag(JsonNode node, String field, String param) throws BindingException {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, param, param + " must be true or false");
    }
    return v.asBoolean();
  }
}
