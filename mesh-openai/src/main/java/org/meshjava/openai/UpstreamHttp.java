package org.meshjava.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.ContinueProtocolHandler;
import org.eclipse.jetty.client.EarlyHintsProtocolHandler;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.ProcessingProtocolHandler;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link UpstreamEngine} posts to an {@code https} upstream, and streams from any upstream:
 * Jetty's HTTP client, HTTP/1.1 over pooled keep-alive connections, one client for every upstream
 * engine in the JVM that trusts the JVM's trust store (its pool is per destination), and one more
 * for each distinct set of CA certificates an upstream was told to trust in its place. A whole
 * reply from a plain {@code http} upstream is read by {@link KeepAliveHttp} instead, on the serving
 * thread. The clients' threads are daemons, so none holds a JVM open. The shared client lives for
 * the process; a client trusting its own CAs is stopped when the last engine holding it ({@link
 * #hold}) lets it go.
 *
 * <p>Why not the JDK's {@code java.net.http} client, which this replaced: on the proxied serve path
 * its asynchronous machinery (a selector thread, a worker pool and a chain of futures per exchange)
 * was a third of the CPU samples; see mesh-bench/README.md for what the change measured.
 *
 * <p>Thread-safe.
 */
final class UpstreamHttp {
  /** The largest whole (not streamed) reply read from an upstream; a larger one fails the serve. */
  static final int MAX_REPLY_BYTES = 4 << 20;

  /** Connections to one upstream at once; each engine's own concurrency bound is lower. */
  private static final int MAX_CONNECTIONS = 1024;

  private static final Duration IDLE = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(UpstreamHttp.class);

  private UpstreamHttp() {}

  /** A whole reply; package-private and read once, so its array is neither copied nor compared. */
  @SuppressWarnings("ArrayRecordComponent")
  record Answer(int status, byte[] body) {}

  /**
   * A reply whose body is read as it arrives; closing {@code body} aborts the exchange and stops
   * {@code deadline}, which the reader restarts on each content delta. {@code contentType} is the
   * reply's header as sent, empty when it sent none.
   */
  record Streamed(int status, String contentType, InputStream body, ContentDeadline deadline) {}

  /** The client of every upstream that trusts the JVM's trust store, started on first use. */
  private static final class Shared {
    static final HttpClient CLIENT = start(null);
  }

  /**
   * The clients of upstreams given their own CAs, one per distinct set, each with the number of
   * holds on it: started by the first hold, stopped when the last is closed. Kept past their
   * engines, an embedder that rebuilds its engines with each new version of a CA file would keep a
   * client (its connection pool, selector and scheduler threads) per version it ever read. An entry
   * is changed only inside {@code compute}, which runs one call at a time per key, so a hold taken
   * while the last one is closed either keeps the client or starts a new one, never gets one that
   * is being stopped.
   */
  private static final ConcurrentHashMap<TrustedCas, Trusting> TRUSTING = new ConcurrentHashMap<>();

  /** A client trusting one CA set, and how many holds on it are open. */
  private static final class Trusting {
    final HttpClient client;

    /** Read and written only inside {@code TRUSTING.compute} for this entry's key. */
    int holds;

    Trusting(HttpClient client) {
      this.client = client;
    }
  }

  /**
   * A hold on the client for an upstream that trusts {@code cas}, or the JVM's trust store where it
   * is null; the engine closes it when it is closed.
   *
   * @throws IllegalStateException if a client had to be started and did not start
   */
  static Hold hold(@Nullable TrustedCas cas) {
    if (cas == null) {
      return new Hold(Shared.CLIENT, null);
    }
    Trusting t =
        TRUSTING.compute(
            cas,
            (k, held) -> {
              Trusting h = held != null ? held : new Trusting(start(k));
              h.holds++;
              return h;
            });
    return new Hold(t.client, cas);
  }

  /**
   * One engine's use of a client. Closing it lets go of a client trusting its own CAs, which is
   * stopped once no hold on it is open (its exchanges still running are aborted); the shared client
   * is never stopped. Closing again does nothing. Thread-safe.
   */
  static final class Hold implements AutoCloseable {
    private final HttpClient client;
    private final @Nullable TrustedCas cas;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Hold(HttpClient client, @Nullable TrustedCas cas) {
      this.client = client;
      this.cas = cas;
    }

    /** The client held. */
    HttpClient client() {
      return client;
    }

    @Override
    public void close() {
      TrustedCas key = cas;
      if (key == null || !closed.compareAndSet(false, true)) {
        return;
      }
      Trusting left = TRUSTING.computeIfPresent(key, (k, t) -> --t.holds > 0 ? t : null);
      if (left == null) {
        // Outside compute: stopping joins the client's threads, and a hold taken meanwhile starts
        // a client of its own.
        stop(client);
      }
    }
  }

  /** The client held for upstreams trusting {@code cas}, or null if none is; for tests. */
  static @Nullable HttpClient trusting(TrustedCas cas) {
    Trusting t = TRUSTING.get(cas);
    return t == null ? null : t.client;
  }

  private static void stop(HttpClient client) {
    try {
      client.stop();
    } catch (Exception e) {
      // Its threads are daemons: a client that fails to stop holds no JVM open.
      LOG.warn("an upstream HTTP client trusting its own CAs did not stop: {}", e.toString());
    }
  }

  private static HttpClient start(@Nullable TrustedCas cas) {
    QueuedThreadPool threads = new QueuedThreadPool(64, 2);
    threads.setName("mesh-upstream");
    threads.setDaemon(true);
    HttpClient client = new HttpClient();
    if (cas != null) {
      // Host names are still checked (Jetty's client identifies the endpoint as HTTPS does):
      // the CA replaces the trust store, not the check that the certificate names the host.
      SslContextFactory.Client tls = new SslContextFactory.Client();
      tls.setTrustStore(cas.keyStore());
      client.setSslContextFactory(tls);
    }
    client.setExecutor(threads);
    client.setScheduler(new ScheduledExecutorScheduler("mesh-upstream-scheduler", true));
    client.setMaxConnectionsPerDestination(MAX_CONNECTIONS);
    // A reply's head read within the plain client's bound: Jetty's default reads it without one,
    // so an upstream sending header lines without end (or one endless line) filled the heap for
    // as long as the timeout let it. Jetty counts chunk extensions and trailers against it too,
    // and fails a reply past it as one that is no valid HTTP (connectionWords).
    client.setMaxResponseHeadersSize(KeepAliveHttp.MAX_HEAD_BYTES);
    client.setIdleTimeout(IDLE.toMillis());
    // OpenAI-compatible servers answer where they are asked; a redirect is an error.
    client.setFollowRedirects(false);
    // No User-Agent, as KeepAliveHttp sends none: Jetty's default names its version, which this
    // server does not tell its own clients either (OpenAiServer sends no Server header).
    client.setUserAgentField(null);
    try {
      client.start();
    } catch (Exception e) {
      throw new IllegalStateException("the upstream HTTP client did not start", e);
    }
    // Each request asks for identity (request()), so no reply is decoded: one in a coding fails
    // (coded) rather than being read as a coding Jetty knows or as raw bytes where it knows none.
    client.getContentDecoderFactories().clear();
    // Jetty skips 102 and 103 without a count and takes any other interim head (an unasked 100
    // Continue, a 1xx it has no handler for) as the reply itself; one handler skips them all.
    // Jetty's 100 Continue handler goes too: it takes the first 100 of an exchange whether asked
    // for or not (no request here sends Expect), which the count would then miss.
    client.getProtocolHandlers().remove(ContinueProtocolHandler.NAME);
    client.getProtocolHandlers().remove(ProcessingProtocolHandler.NAME);
    client.getProtocolHandlers().remove(EarlyHintsProtocolHandler.NAME);
    client.getProtocolHandlers().put(new InterimHeads());
    return client;
  }

  /**
   * Posts {@code json} and reads the whole reply, within {@code timeout} from the call (connecting
   * included).
   */
  static Answer post(
      HttpClient client, URI uri, byte[] json, Optional<String> bearer, Duration timeout)
      throws IOException, InterruptedException {
    Request request =
        request(client, uri, json, bearer).timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    try {
      ContentResponse r = new CompletableResponseListener(request, MAX_REPLY_BYTES).send().get();
      IOException unreadable = unreadable(r);
      if (unreadable != null) {
        throw unreadable;
      }
      return new Answer(r.getStatus(), r.getContent());
    } catch (ExecutionException e) {
      throw failed(e.getCause());
    }
  }

  /**
   * Posts {@code json} and returns once the reply's status and headers arrived (within {@code
   * timeout}); then the body must bring content within {@code timeout} of the call and of each
   * {@linkplain ContentDeadline#content content} the caller reports to the returned deadline, and
   * each read may wait up to {@code timeout} for bytes. No bound covers the whole stream: an honest
   * long generation runs as long as it produces, while an upstream trickling comments or bytes
   * without content fails at the timeout.
   */
  static Streamed stream(
      HttpClient client, URI uri, byte[] json, Optional<String> bearer, Duration timeout)
      throws IOException, InterruptedException {
    Request request =
        request(client, uri, json, bearer).idleTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    ContentDeadline deadline =
        new ContentDeadline(
            timeout,
            client.getScheduler(),
            f -> {
              var unused = request.abort(f);
            });
    InputStreamResponseListener listener = new InputStreamResponseListener();
    request.send(listener);
    Response r;
    try {
      r = listener.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      deadline.stop();
      var unused = request.abort(e);
      // Not the Duration's text (PT10S): the client reads this.
      throw new Worded("no reply within the timeout", e);
    } catch (ExecutionException e) {
      deadline.stop();
      throw failed(e.getCause());
    } catch (InterruptedException e) {
      deadline.stop();
      throw e;
    }
    IOException unreadable = unreadable(r);
    if (unreadable != null) {
      deadline.stop();
      var unused = request.abort(unreadable);
      throw unreadable;
    }
    String type = r.getHeaders().get(HttpHeader.CONTENT_TYPE);
    return new Streamed(
        r.getStatus(),
        type == null ? "" : type,
        deadline.watching(listener.getInputStream()),
        deadline);
  }

  /**
   * Why a 200 reply's body cannot be read as it is, or null: a content coding other than identity,
   * or a transfer coding other than chunked (Jetty's client undoes chunked alone, and a request
   * without TE takes no other, RFC 9112 §6.1). Any other status is read, for the log.
   */
  private static @Nullable IOException unreadable(Response r) {
    if (r.getStatus() != 200) {
      return null;
    }
    for (String value : r.getHeaders().getValuesList(HttpHeader.CONTENT_ENCODING)) {
      String coding = coding(value);
      if (coding != null) {
        return coded(coding);
      }
    }
    List<String> transfer = r.getHeaders().getCSV(HttpHeader.TRANSFER_ENCODING, false);
    if (transfer.size() > 1
        || (transfer.size() == 1 && !transfer.getFirst().equalsIgnoreCase("chunked"))) {
      String named = String.join(", ", transfer);
      return new Worded(
          "the upstream sent Transfer-Encoding "
              + (named.matches("[A-Za-z0-9._+, -]{1,64}") ? named : "other than chunked")
              + " (this client takes chunked alone)");
    }
    return null;
  }

  /**
   * The first content coding other than identity that a {@code Content-Encoding} value lists, or
   * null if it lists none. A reply is asked for in identity, and neither client decodes: a coded
   * body read as it is would fail far from the cause ("not JSON", or a stream of lines that are no
   * events ending "without a usage report").
   */
  static @Nullable String coding(String contentEncoding) {
    for (String element : contentEncoding.split(",", -1)) {
      String c = element.trim();
      if (!c.isEmpty() && !c.equalsIgnoreCase("identity")) {
        return c;
      }
    }
    return null;
  }

  /**
   * The failure of a 200 reply sent in {@code coding}. The coding is named when it is a token of at
   * most 32 characters (gzip, deflate, br); anything longer or odder is the upstream's own text,
   * which the API client does not read.
   */
  static IOException coded(String coding) {
    String named = coding.matches("[A-Za-z0-9._+-]{1,32}") ? coding : "other than identity";
    return new Worded(
        "the upstream sent its reply with Content-Encoding "
            + named
            + ", though asked for identity (no coding)");
  }

  private static Request request(HttpClient client, URI uri, byte[] json, Optional<String> bearer) {
    Request request =
        client
            .newRequest(uri)
            .method(HttpMethod.POST)
            .attribute(InterimHeads.COUNT, new AtomicInteger())
            .body(new BytesRequestContent("application/json", json))
            // No Accept-Encoding would accept any coding (RFC 9110 §12.5.3).
            .headers(h -> h.put(HttpHeader.ACCEPT_ENCODING, "identity"));
    bearer.ifPresent(k -> request.headers(h -> h.put(HttpHeader.AUTHORIZATION, "Bearer " + k)));
    return request;
  }

  /**
   * Skips interim ({@code 1xx}) heads before a reply's own, as a client must whether it expected
   * them or not (RFC 9110 §15.2), at most {@link KeepAliveHttp#MAX_INTERIM_HEADS} per exchange as
   * the plain client does: past that the exchange fails, since an upstream sending them without end
   * would otherwise hold the serve to its timeout. Not 101, which switches protocols and is no
   * interim head; this client never asks for it, so it stays a reply this server does not take.
   * Built on Jetty's handler for 102, which resets the exchange's response for the next head.
   */
  private static final class InterimHeads extends ProcessingProtocolHandler {
    /** The request attribute holding its count of interim heads so far. */
    static final String COUNT = "mesh.interimHeads";

    @Override
    public String getName() {
      return "mesh-interim-heads";
    }

    @Override
    public boolean accept(Request request, Response response) {
      int status = response.getStatus();
      return status >= 100 && status < 200 && status != 101;
    }

    @Override
    protected void onProcessing(Request request, HttpFields fields) {
      if (request.getAttributes().get(COUNT) instanceof AtomicInteger count
          && count.incrementAndGet() > KeepAliveHttp.MAX_INTERIM_HEADS) {
        var unused =
            request.abort(
                new Worded(
                    "the upstream sent more than "
                        + KeepAliveHttp.MAX_INTERIM_HEADS
                        + " interim (1xx) heads"));
      }
    }
  }

  /**
   * A failed exchange as an IOException whose message names what happened, not a class, nor where
   * the upstream is ({@link #connectionWords}).
   */
  private static IOException failed(@Nullable Throwable cause) {
    String ended = cause == null ? null : connectionWords(cause);
    if (ended != null) {
      return new Worded(ended, cause);
    }
    if (cause instanceof IOException io) {
      return io;
    }
    @Nullable String what =
        switch (cause) {
          case TimeoutException t -> "no reply within the timeout";
          // What CompletableResponseListener throws past its buffering limit.
          case IllegalArgumentException a ->
              "the reply is larger than " + MAX_REPLY_BYTES + " bytes, the most read whole";
          // Jetty fails a reply whose head was cut short with a bare error in some states (an
          // AssertionError where assertions run): no message is no words, never "null".
          case null -> "the exchange failed";
          default -> cause.getMessage() == null ? "the exchange failed" : null;
        };
    // Another's own message is the operator's: it may name the upstream's address.
    if (what == null && cause != null) {
      return new IOException(cause.getMessage(), cause);
    }
    return new Worded(what == null ? "the exchange failed" : what, cause);
  }

  /**
   * A failed exchange in our HTTP clients' own words (this one's and {@link KeepAliveHttp}'s),
   * written for the API client: they say what went wrong and never where the upstream is ({@link
   * UpstreamEngine} declares them the client's, SPEC.md 60.10). Any other {@link IOException} is in
   * the JVM's or a library's words, which may name the upstream's host and port.
   */
  static final class Worded extends IOException {
    private static final long serialVersionUID = 1L;

    Worded(String words) {
      super(words);
    }

    Worded(String words, @Nullable Throwable cause) {
      super(words, cause);
    }
  }

  /**
   * Words for the failures Jetty's client reports in its own terms, or null for any other. Its
   * message for a connection that ended before the reply did (an {@link EOFException}) and for a
   * reply that is no HTTP ({@link HttpResponseException}) is its connection's {@code toString()},
   * both addresses in it; the upstream's is a host on the operator's network, and these messages
   * reach the API client (SPEC 70).
   */
  static @Nullable String connectionWords(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof EOFException) {
        return "the upstream closed the connection before its reply ended";
      }
      if (c instanceof HttpResponseException) {
        return "the upstream's reply is not valid HTTP";
      }
    }
    return null;
  }
}
