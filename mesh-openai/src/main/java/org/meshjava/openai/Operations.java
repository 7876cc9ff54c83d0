package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.meshjava.steward.Readiness;
import org.meshjava.steward.Steward;

/**
 * The operator's endpoints beside the API (SPEC.md "Health, metrics and shutdown"): {@code GET
 * /healthz}, {@code GET /readyz}, {@code GET /metrics} when a scrape is configured; and the drain
 * before a shutdown, during which every {@code POST} is refused with 503 {@code shutting_down}
 * while the requests already being answered finish.
 *
 * <p>Thread-safe.
 */
final class Operations {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The content type of the Prometheus text exposition format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  /**
   * A POST refused while draining. Nothing of the request was decided, so the same request can be
   * served by whatever answers at this address next (the instance replacing this one, or another
   * behind the same load balancer): the reply says when to come back, as a full server's 429 does,
   * and the OpenAI SDKs resend it then. The connection it goes out on is closed (see {@link
   * #draining()}), so the resend does not reach this server again.
   */
  private static final Reply.Json SHUTTING_DOWN =
      new Reply.Json(
          503,
          ErrorReply.body(
              "server_error",
              "shutting_down",
              "this steward is shutting down and takes no new requests; send the request again in"
                  + " a moment, on a new connection",
              Optional.empty()),
          Reply.Retry.AFTER_A_SECOND);

  private final Steward steward;
  private final Optional<Supplier<String>> metrics;
  private final Object inFlightLock = new Object();
  private int inFlight;
  private volatile boolean draining;

  Operations(Steward steward, Optional<Supplier<String>> metrics) {
    this.steward = steward;
    this.metrics = metrics;
  }

  /** Answers {@code path} if it is an operator's endpoint, or a POST refused while draining. */
  Optional<Reply> answer(String method, String path) {
    return switch (path) {
      case "/healthz" -> Optional.of(only("GET", method, this::alive));
      case "/readyz" -> Optional.of(only("GET", method, this::readiness));
      case "/metrics" ->
          metrics.isPresent()
              ? Optional.of(
                  only(
                      "GET",
                      method,
                      () -> new Reply.Text(200, PROMETHEUS_TEXT, metrics.get().get())))
              : Optional.empty();
      default -> draining && "POST".equals(method) ? Optional.of(SHUTTING_DOWN) : Optional.empty();
    };
  }

  private static Reply only(String allowed, String method, Supplier<Reply> answer) {
    if (!allowed.equals(method)) {
      return ErrorReply.methodNotAllowed(allowed, method);
    }
    return answer.get();
  }

  private Reply alive() {
    ObjectNode root = NODES.objectNode();
    root.put("status", "alive");
    return new Reply.Json(200, root);
  }

  private Reply readiness() {
    Readiness r = steward.readiness();
    boolean ready = r.ready() && !draining;
    ObjectNode root = NODES.objectNode();
    root.put("ready", ready);
    root.put("draining", draining);
    // The API listener may face the network; the console, on a listener of its own, has the rest.
    ReadinessJson.write(r, root, ReadinessJson.Reader.ANYONE);
    return new Reply.Json(ready ? 200 : 503, root);
  }

  /**
   * Whether the server is draining: every answer from now on closes its connection, so that a
   * client's next request opens a new one, which can reach the instance replacing this one.
   */
  boolean draining() {
    return draining;
  }

  /** Counts a request being answered, so that a drain waits for it. */
  void entered() {
    synchronized (inFlightLock) {
      inFlight++;
    }
  }

  /** The request counted by {@link #entered()} is answered. */
  void left() {
    synchronized (inFlightLock) {
      inFlight--;
      if (inFlight == 0) {
        inFlightLock.notifyAll();
      }
    }
  }

  /**
   * Stops taking new requests (every POST is refused from now on, and {@code /readyz} answers 503)
   * and waits up to {@code grace} for the requests being answered to finish.
   *
   * @return whether every one finished within the grace period
   */
  boolean drain(Duration grace) throws InterruptedException {
    draining = true;
    long start = System.nanoTime();
    // Saturated, and counted as time since the start: a grace of centuries ("wait as long as it
    // takes") neither throws from toNanos nor wraps start + grace into the past.
    long graceNanos =
        grace.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : grace.toNanos();
    synchronized (inFlightLock) {
      while (inFlight > 0) {
        long left = graceNanos - (System.nanoTime() - start);
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(inFlightLock, left);
      }
      return true;
    }
  }

  /** How many requests are being answered now. */
  int inFlight() {
    synchronized (inFlightLock) {
      return inFlight;
    }
  }
}
