package org.meshjava.openai;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Opened around the handling of each request to a {@code /v1/} endpoint, on the thread that answers
 * it, and closed there once that thread has handed the whole answer to the connection: a streamed
 * answer once its last event is written (each event is written before the next is made), a whole
 * answer once its bytes are queued to be written, without waiting for a slow client to read them
 * (no thread is held for a client that does not read). It is where an application puts its tracing
 * (the {@code mesh-metrics} module opens an observation that continues an incoming W3C {@code
 * traceparent}, so every serve made for the request is part of the caller's trace). The binding
 * itself knows nothing of tracing; with no scope set, nothing is opened.
 *
 * <p>Jetty's own refusals of a {@code /v1/} request are scoped too (the size limit's 413, a chunked
 * body whose framing breaks, a head too large): opened, told their status and closed on the thread
 * that writes them, under the path with its %-escapes decoded as an answered request's is. A
 * request refused before its request line could be read has no path and is not scoped, nor is one
 * refused on the console's listener, which serves no {@code /v1/} API.
 *
 * <p>Implementations are thread-safe; each opened scope is used by one thread. What an
 * implementation throws, an {@code Error} included, is logged and the request answered without it;
 * save the JVM failing (a {@link VirtualMachineError} other than a {@link StackOverflowError}, such
 * as an {@link OutOfMemoryError}), which passes on as it does from the steward's listeners: the
 * request is answered 500 if nothing was sent yet, and still counted out of the server's drain.
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
