package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import org.meshjava.core.internal.OperatorText;

/**
 * Refusals in OpenAI's error shape: {@code {"error": {"message", "type", "param", "code"}}}. The
 * message is one line for people; {@code code} is stable for programs (a JCP denial label for a
 * refused grant). Never a stack trace.
 */
final class ErrorReply {
  private ErrorReply() {}

  static Reply.Json of(
      int status, String type, String code, String message, Optional<String> param) {
    return new Reply.Json(status, body(type, code, message, param));
  }

  static ObjectNode body(String type, String code, String message, Optional<String> param) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode e = root.putObject("error");
    e.put("message", oneLine(message));
    e.put("type", type);
    if (param.isPresent()) {
      e.put("param", param.get());
    } else {
      e.putNull("param");
    }
    e.put("code", code);
    return root;
  }

  static Reply.Json invalid(int status, String code, String message) {
    return invalid(status, code, message, Optional.empty());
  }

  /** 413 {@code body_too_large}: the body, declared or read, is past {@code limit} bytes. */
  static Reply.Json bodyTooLarge(long limit) {
    return invalid(
        413,
        "body_too_large",
        "the body is larger than this server's limit of " + limit + " bytes");
  }

  /** An {@code invalid_request_error}: the request, or {@code param} in it, is at fault. */
  static Reply.Json invalid(int status, String code, String message, Optional<String> param) {
    return of(status, "invalid_request_error", code, message, param);
  }

  /**
   * 405 {@code method_not_allowed}: the path answers {@code allowed} only. The console has its own
   * wording, since it answers nothing but {@code GET}.
   */
  static Reply.Json methodNotAllowed(String allowed, String method) {
    // The API answers HEAD wherever it answers GET.
    return invalid(405, "method_not_allowed", "use " + allowed + " here, not " + method)
        .allowing(allowed.replace("GET", "GET, HEAD"));
  }

  /**
   * 500 {@code internal_error}: our own bug, logged where it was caught under {@code requestId},
   * never shown. It tells clients not to resend on their own ({@code x-should-retry: false}): where
   * it was caught, how far the request got is unknown, and a bug met after the seal would meet a
   * resend again, serving and sealing it once more (or, on a grant, refusing it {@code
   * presentation-spent}, which hides the failure).
   */
  static Reply.Json internalError(String requestId) {
    return of(
            500,
            "server_error",
            "internal_error",
            "internal error; the server log has the details under request " + requestId,
            Optional.empty())
        .futile();
  }

  static Reply.Json of(BindingException e) {
    return invalid(400, e.code(), String.valueOf(e.getMessage()), e.param());
  }

  private static String oneLine(String s) {
    // The message may echo the request (its model) or an engine's words: one safe line.
    // Stripped once its line ends are spaces (a leading U+2028 included), then cut.
    return s == null
        ? ""
        : OperatorText.oneLine(OperatorText.oneLine(s.replaceAll("[\\r\\n]+", " ")).strip(), 1000);
  }
}
