package org.meshjava.openai;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Opened around the handling of each request to a {@code /v1/} endpoint, on the thread that answers
 * it, and closed there once the answer is written: where an application puts its tracing (the
 * {@code mesh-metrics} module opens an observation that continues an incoming W3C {@code
 * traceparent}, so every serve made for the request is part of the caller's trace). The binding
 * itself knows nothing of tracing; with no scope set, nothing is opened.
 *
 * <p>Implementations are thread-safe; each opened scope is used by one thread. What an
 * implementation throws, an {@code Error} included, is logged and the request answered without it.
 */
@FunctionalInterface
public interface RequestScope {
  /**
   * Opens the scope of one request.
   *
   * @param method the HTTP method
   * @param path the path, such as {@code /v1/chat/completions}
   * @param header looks up a request header by lower-case name; null when absent
   */
  Opened open(String method, String path, Function<String, @Nullable String> header);

  /** One request's open scope. */
  interface Opened extends AutoCloseable {
    /** The status the request is answered with. */
    default void status(int status) {}

    /** Closes the scope, on the thread that opened it. */
    @Override
    void close();
  }
}
