package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.Setting;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI-compatible HTTP binding (§2.3): a {@link Steward} served over HTTP on Jetty 12.
 *
 * <ul>
 *   <li>{@code POST /v1/chat/completions} and {@code POST /v1/responses}, whole or streamed ({@code
 *       "stream": true}), every reply's {@code usage.energy} carrying the receipt (a chat stream
 *       that asks no usage carries it as {@code energy} on its finishing chunk);
 *   <li>{@code GET /v1/models}: the backends with fidelity, recipe and weights digest;
 *   <li>{@code GET /v1/mesh/steward}: the steward's {@code did:key}, the subject grants name;
 *   <li>{@code POST /v1/mesh/witness}: 200 when the journal holds a shown receipt, 409 when not.
 *   <li>{@code GET /healthz}, {@code GET /readyz} and, when configured, {@code GET /metrics}: the
 *       operator's endpoints (see {@link #drain} for the shutdown);
 *   <li>{@code GET /v1/mesh/checkpoint}, {@code GET /v1/mesh/proof/inclusion?seq=&size=}, {@code
 *       GET /v1/mesh/proof/consistency?from=&to=}: the transparency log (SPEC.md §65); {@code POST
 *       /v1/mesh/checkpoint} takes a witness's cosignature, and answers 409 to a checkpoint the
 *       steward signed that its log does not hold (grants are then refused, SPEC.md §60.4).
 *   <li>Off unless {@link Builder#console} enables it, on a listener of its own: the read-only
 *       operator console at {@code GET /console} and the JSON it reads ({@code GET
 *       /v1/mesh/receipts}, {@code /v1/mesh/grants}, {@code /v1/mesh/status}; SPEC.md §75).
 * </ul>
 *
 * <p>Every refusal is OpenAI's error JSON (see SPEC.md §70): 400 for a malformed body, 401/403/503
 * for a refused grant, 408 for a body that does not arrive within the deadline, 413 above the body
 * limit, 415 for a body not sent as {@code application/json}, 422 when no backend is admissible,
 * 429 beyond the concurrency bound, 501 for a transfer coding other than chunked, never a stack
 * trace.
 *
 * <p>Slow clients cost no threads: bodies are read as their bytes arrive ({@link BodyReader}), each
 * within a deadline; a request's headers have a deadline of their own ({@link
 * Builder#headerDeadline}); idle connections are closed; and each listener holds a bounded number
 * of connections ({@link Builder#maxConnections}), closing idle ones sooner when it is full.
 *
 * <p>The server does not own the steward: close the steward after the server. Thread-safe.
 */
public final class OpenAiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OpenAiServer.class);

  /** The header the official OpenAI SDKs read before retrying a request on their own. */
  static final String SHOULD_RETRY = "x-should-retry";

  private final Server jetty;
  private final ServerConnector connector;
  private final Endpoints endpoints;
  private final Operations operations;
  private final Optional<RequestScope> scope;
  private final long maxBodyBytes;
  private final BodyReader.Budget bodyBudget;
  private final Duration bodyDeadline;
  private final RefusedBodyDrain.Bounds refusedBodyDrain;
  private final HeaderDeadline headerDeadline;
  private final Duration writeTimeout;
  private final Duration deliveryTimeout;
  private final TimeLimits timeLimits;
  private final SizeLimits sizeLimits;
  private final @Nullable ServerConnector consoleConnector;
  private final @Nullable ConsoleEndpoints console;

  private OpenAiServer(Builder b) {
    int concurrent = b.maxConcurrentServes.orElseGet(() -> backendsTotal(b.steward));
    Optional<ConsoleFeed> feed =
        b.consoleHost == null ? Optional.empty() : Optional.of(new ConsoleFeed());
    this.endpoints =
        new Endpoints(b.steward, b.defaultJouleCeilingUj, concurrent, feed, b.afterSeal);
    this.operations = new Operations(b.steward, b.metrics);
    this.scope = b.scope;
    this.maxBodyBytes = b.maxBodyBytes;
    this.bodyBudget =
        new BodyReader.Budget(
            Math.max(
                2 * b.maxBodyBytes,
                b.maxBufferedBodyBytes.orElseGet(() -> Runtime.getRuntime().maxMemory() / 4)));
    this.bodyDeadline = b.bodyDeadline;
    this.refusedBodyDrain =
        new RefusedBodyDrain.Bounds(b.refusedBodyDrainBytes, b.refusedBodyDrainTime);
    this.writeTimeout = b.writeTimeout;
    this.deliveryTimeout = b.deliveryTimeout;
    if (b.writeTimeout.compareTo(b.idleTimeout) >= 0) {
      throw new IllegalArgumentException(
          "writeTimeout "
              + b.writeTimeout
              + " must be shorter than idleTimeout "
              + b.idleTimeout
              + ", or a reader that stops holds its serve until the connection idles out");
    }
    // Every serve blocks a thread (an engine computing, an upstream answering, a stream writing).
    QueuedThreadPool threads =
        requestThreads(Math.max(16, concurrent * 2 + 8), b.threadIdleTimeout);
    this.jetty = new Server(threads);
    // Every listener is bound before any accepts: a start refused at one bind (the console's port
    // in use) has then accepted no connection on another, so no request can have been served.
    // Jetty's default, set here so that a change of it cannot pass unseen (ServerOpensEarlyTest);
    // mesh serve's cleanup closes its local engines on that ground.
    jetty.setOpenEarly(true);
    this.headerDeadline = new HeaderDeadline(b.headerDeadline, jetty.getScheduler());
    jetty.addBean(headerDeadline, true);
    HttpConfiguration http = new HttpConfiguration();
    // Which server software, at which version, answers is no client's business, and it tells
    // whoever scans for a known flaw where to look.
    http.setSendServerVersion(false);
    // An encoded '/' or '%' in a path is let through rather than answered 400 by Jetty: an OpenAI
    // SDK encodes a model id as one segment (GET /v1/models/meta-llama%2FLlama-3.1-8B), and the
    // endpoints match whole paths and decode only that segment, so nothing is mapped by a prefix
    // that such an encoding could slip past.
    http.setUriCompliance(
        UriCompliance.DEFAULT.with(
            "mesh-openai",
            UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
            UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
    http.setHttpCompliance(HTTP_COMPLIANCE);
    this.connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
    connector.setHost(b.listening != null ? b.listening.host : b.host);
    connector.setPort(b.port);
    // A connection that sends nothing at all (no request, or a stalled body) is closed after this.
    connector.setIdleTimeout(b.idleTimeout.toMillis());
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    // One that trickles its headers is closed after the header deadline.
    connector.addEventListener(headerDeadline);
    jetty.addConnector(connector);
    if (b.listening != null) {
      takeOver(connector, b.listening);
    }
    // Idle connections cost a client nothing to hold open; without a bound, enough of them take
    // every file descriptor the process may open, and then no client is accepted (and no file
    // can be opened) until the idle timeout closes them.
    int maxConnections = b.maxConnections.orElseGet(OpenAiServer::defaultMaxConnections);
    ConnectionBound.on(jetty, connector, maxConnections, b.limitedIdleTimeout);
    if (b.consoleHost != null && feed.isPresent()) {
      // The console has its own listener, so that the API's address never exposes it.
      ServerConnector c = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
      c.setHost(b.consoleHost);
      c.setPort(b.consolePort);
      c.setIdleTimeout(b.idleTimeout.toMillis());
      c.addEventListener(headerDeadline);
      jetty.addConnector(c);
      if (b.consoleListening != null) {
        takeOver(c, b.consoleListening);
      }
      // Bounded as the API's listener is, but apart: connections held open on one take no place
      // on the other.
      ConnectionBound.on(jetty, c, CONSOLE_MAX_CONNECTIONS, b.limitedIdleTimeout);
      this.consoleConnector = c;
      this.console = new ConsoleEndpoints(b.steward, feed.get(), loopback(b.consoleHost));
    } else {
      this.consoleConnector = null;
      this.console = null;
    }
    SizeLimitHandler limit = new SizeLimitHandler(maxBodyBytes, -1);
    Api api = new Api();
    limit.setHandler(api);
    jetty.setHandler(new Glue(limit, api));
    jetty.setErrorHandler(new JsonErrors(maxBodyBytes, http.getRequestHeaderSize()));
    this.timeLimits =
        new TimeLimits(
            b.headerDeadline,
            bodyDeadline,
            refusedBodyDrain.maxTime(),
            Duration.ofMillis(connector.getIdleTimeout()),
            writeTimeout,
            deliveryTimeout);
    this.sizeLimits =
        new SizeLimits(
            maxBodyBytes, bodyBudget.limit(), refusedBodyDrain.maxBytes(), maxConnections);
  }

  /** Hands {@code bound}'s socket to {@code listener}, which accepts on it once started. */
  private static void takeOver(ServerConnector listener, Bound bound) {
    try {
      listener.open(bound.channel);
    } catch (IOException e) {
      // Jetty refuses only a socket that is not bound: one closed before the server was built.
      throw new IllegalArgumentException(
          "the address bound at " + bound.host + " is closed: " + e.getMessage(), e);
    }
  }

  /**
   * An address bound ahead of the server that is to listen on it ({@link Builder#listenOn}, {@link
   * Builder#console(Bound)}): no other process can take it from then on, and it accepts no
   * connection until that server {@linkplain #start() starts} (clients connecting meanwhile wait in
   * the kernel's accept queue). So a start can claim its port before work that takes time (loading
   * a model), and be refused a port in use before doing it. Closing it frees the address, and
   * resets the connections still waiting, unanswered; the server built on it closes it with itself.
   * Thread-safe.
   */
  public static final class Bound implements AutoCloseable {
    private final String host;
    private final java.nio.channels.ServerSocketChannel channel;

    private Bound(String host, java.nio.channels.ServerSocketChannel channel) {
      this.host = host;
      this.channel = channel;
    }

    /**
     * Binds {@code host}:{@code port} (0 picks a free port) as the server's own listener would: the
     * address reusable, the same accept queue.
     *
     * @throws IOException if the address cannot be bound, in Jetty's words ({@code Failed to bind
     *     to /host:port}) with the {@link java.net.BindException} as its cause
     */
    public static Bound bind(String host, int port) throws IOException {
      Objects.requireNonNull(host, "host");
      Builder.listenPort("port", port);
      java.net.InetSocketAddress address = new java.net.InetSocketAddress(host, port);
      java.nio.channels.ServerSocketChannel channel = java.nio.channels.ServerSocketChannel.open();
      try {
        channel.socket().setReuseAddress(true);
        channel.bind(address, ACCEPT_QUEUE);
      } catch (IOException | RuntimeException e) {
        // Said as Jetty's own listener says it (an unresolved host too), so that one refusal reads
        // the same whichever bound it.
        try {
          channel.close();
        } catch (IOException x) {
          e.addSuppressed(x);
        }
        throw new IOException("Failed to bind to " + address, e);
      }
      return new Bound(host, channel);
    }

    /** The bound port (the one picked where 0 was asked for). */
    public int port() {
      return channel.socket().getLocalPort();
    }

    /** Frees the address; nothing if already closed. */
    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /**
   * The size bounds a server applies to its clients, each set by the {@link Builder} setter of the
   * same name (or its default). An immutable value.
   *
   * @param maxBodyBytes the largest request body taken
   * @param maxBufferedBodyBytes the bytes the bodies being read at once may hold
   * @param refusedBodyDrainBytes how much of a body refused 413 is read and dropped
   * @param maxConnections how many connections the API's listener holds at once
   */
  public record SizeLimits(
      long maxBodyBytes,
      long maxBufferedBodyBytes,
      long refusedBodyDrainBytes,
      int maxConnections) {}

  /**
   * The size bounds this server applies, as built: what {@code mesh serve} can check it handed
   * over, as with {@link #timeLimits()}.
   */
  public SizeLimits sizeLimits() {
    return sizeLimits;
  }

  /**
   * The time limits a server applies to its clients, each set by the {@link Builder} setter of the
   * same name. An immutable value.
   *
   * @param headerDeadline how long a request's headers may take from their first byte
   * @param bodyDeadline how long a request's body may take from the end of its headers
   * @param refusedBodyDrainTime how long the body of a request refused 413 is read and dropped
   * @param idleTimeout how long a connection may send and take nothing
   * @param writeTimeout how long one piece of a streamed reply may wait for its client
   * @param deliveryTimeout how long, in all, the writes of one reply may wait for its client
   */
  public record TimeLimits(
      Duration headerDeadline,
      Duration bodyDeadline,
      Duration refusedBodyDrainTime,
      Duration idleTimeout,
      Duration writeTimeout,
      Duration deliveryTimeout) {
    /** Checks that no limit is null. */
    public TimeLimits {
      Objects.requireNonNull(headerDeadline, "headerDeadline");
      Objects.requireNonNull(bodyDeadline, "bodyDeadline");
      Objects.requireNonNull(refusedBodyDrainTime, "refusedBodyDrainTime");
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      Objects.requireNonNull(writeTimeout, "writeTimeout");
      Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
    }
  }

  /**
   * The time limits this server applies, as built: what {@code mesh serve} and an application that
   * configures the builder from its own settings can check they handed over.
   */
  public TimeLimits timeLimits() {
    return timeLimits;
  }

  /**
   * The server-wide bound when none is set: the sum of what each backend runs and queues, capped; a
   * backend that declares no bound (an engine computing on this host) counts as the CPU count.
   */
  private static int backendsTotal(Steward steward) {
    long total = 0;
    for (org.meshjava.core.ServingEngine e : steward.backends()) {
      long own = (long) e.maxConcurrentServes() + e.maxWaitingServes();
      total += own >= Integer.MAX_VALUE ? ServeConcurrency.cores() : Math.max(1, own);
    }
    return (int) Math.max(1, Math.min(MAX_DEFAULT_CONCURRENT_SERVES, total));
  }

  /**
   * How strictly a request's head is parsed: Jetty's RFC 9110 mode less its one leniency, a bare LF
   * ending a header line (RFC 9112 §2.2 lets a server take it or not). A request framed with bare
   * LFs is refused 400 and its connection closed, as Jetty refuses a chunk framed with them: a
   * proxy in front that reads such a line otherwise (as part of a field value) would see other
   * requests on the connection than this server does. Everything else RFC 9110 mode refuses stays
   * refused: folded lines, whitespace before a colon, two Content-Lengths, Content-Length beside
   * Transfer-Encoding, two Host fields (SPEC.md 70, "Request framing").
   */
  static final HttpCompliance HTTP_COMPLIANCE =
      HttpCompliance.RFC9110.without("mesh-openai", HttpCompliance.Violation.LF_HEADER_TERMINATION);

  /**
   * Connections the kernel may hold for the acceptor. Left at Jetty's default (the JDK's 50), a
   * burst of new connections overflowed it whenever the acceptor fell a few milliseconds behind on
   * loaded cores, and each dropped SYN cost its client a 1 s retransmit: 5 of 500 connections
   * opened one after another against mesh serve here. The kernel caps it at {@code somaxconn}.
   */
  static final int ACCEPT_QUEUE = 1024;

  /**
   * The idle timeout of a listener's connections while it holds as many as it may ({@link
   * Builder#maxConnections}, {@link #CONSOLE_MAX_CONNECTIONS}): long enough for a client's next
   * request on its connection, short enough that connections held open and silent give their places
   * to the clients waiting to be accepted. Tests set a shorter one ({@link
   * Builder#limitedIdleTimeout}) so as not to wait out this one.
   */
  static final Duration LIMITED_IDLE_TIMEOUT = Duration.ofSeconds(1);

  /**
   * How many connections the console's listener holds at once; at the bound it treats them as the
   * API's listener treats its own ({@link Builder#maxConnections}). Plenty for the few browsers
   * that poll a console, and taken from the files that the API's default bound leaves over.
   */
  static final int CONSOLE_MAX_CONNECTIONS = 64;

  /** The default {@link Builder#maxConnections} where the process may open files enough. */
  static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  /**
   * {@link #DEFAULT_MAX_CONNECTIONS}, or a quarter fewer than the files the process may open when
   * that is less: the rest stay for the journal, its snapshots, the module path's jars and the
   * connections to upstream backends.
   */
  static int defaultMaxConnections() {
    long files = Long.MAX_VALUE;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      files = unix.getMaxFileDescriptorCount();
    }
    return connectionsFor(files);
  }

  /** The default connection bound for a process that may open {@code files} files. */
  static int connectionsFor(long files) {
    long spare = files - Math.max(RESERVED_FILES, files / 4);
    return (int) Math.max(MIN_CONNECTIONS, Math.min(DEFAULT_MAX_CONNECTIONS, spare));
  }

  /**
   * The pool that runs the listeners and every request, up to {@code maxThreads}: a thread above
   * its minimum that has sat idle for {@code idleTimeout} is stopped, every such thread at once.
   *
   * <p>A burst of thousands of connections grows the pool to its maximum, hundreds of threads, each
   * holding its stack. Jetty's defaults then stop one idle thread per idle timeout (60 s), so the
   * pool stayed near its peak for hours after the burst; letting each idle timeout stop as many as
   * the pool may hold sheds them all once they have idled that long. Starting a thread again when
   * load returns costs far less than keeping hundreds that nothing uses.
   */
  static QueuedThreadPool requestThreads(int maxThreads, Duration idleTimeout) {
    QueuedThreadPool threads = new QueuedThreadPool(maxThreads);
    threads.setName("mesh-openai");
    threads.setIdleTimeout(Math.toIntExact(idleTimeout.toMillis()));
    threads.setMaxEvictCount(maxThreads);
    // No reserved threads: the selector then hands each request to an idle pool thread through
    // the pool's queue, rather than running the request itself after waking a reserved thread to
    // select in its place. Every request here blocks (a serve, a body read), so the selecting
    // thread changed on every request, and waking and parking a reserved thread cost more CPU per
    // request than the queue hand-off does (mesh-bench/README.md, session 32).
    threads.setReservedThreads(0);
    return threads;
  }

  /**
   * How long a request thread above the pool's minimum may sit idle before it is stopped: long
   * enough that a steady load keeps its threads, short enough that a burst's hundreds of threads
   * are gone seconds after it ends, not hours.
   */
  static final Duration THREAD_IDLE_TIMEOUT = Duration.ofSeconds(10);

  /** The fewest files the default connection bound leaves for everything but connections. */
  private static final long RESERVED_FILES = 256;

  /** The smallest default connection bound, however few files the process may open. */
  private static final int MIN_CONNECTIONS = 64;

  /** The cap on the default server-wide bound; each serve may hold a thread. */
  static final int MAX_DEFAULT_CONCURRENT_SERVES = 1024;

  /** Starts a builder for a server in front of {@code steward}. */
  public static Builder builder(Steward steward) {
    return new Builder(steward);
  }

  /**
   * Starts listening.
   *
   * @throws IOException if the address cannot be bound
   */
  public OpenAiServer start() throws IOException {
    try {
      jetty.start();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot start the HTTP server: " + e.getMessage(), e);
    }
    LOG.info("mesh-openai listening on {}", baseUri());
    return this;
  }

  /** The bound port (the actual one when built with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** The OpenAI base URI clients point at: {@code http://host:port/v1}. */
  public URI baseUri() {
    return uri(connector, "/v1");
  }

  /** {@code http://host:port/path} on the listener's bound port; an IPv6 host in brackets. */
  private static URI uri(ServerConnector listener, String path) {
    String host = listener.getHost() == null ? "127.0.0.1" : listener.getHost();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + listener.getLocalPort() + path);
  }

  /**
   * Drains the server before a shutdown: from now on every {@code POST} is refused with 503 {@code
   * shutting_down} and {@code /readyz} answers 503, while the requests already being answered
   * (serves included, streams to their end) finish; waits for them up to {@code grace}. The server
   * keeps listening, so that a client is told rather than refused a connection; {@link #close()}
   * then stops it.
   *
   * @return whether every request being answered finished within {@code grace}
   * @throws InterruptedException if interrupted while waiting; the server stays draining
   */
  public boolean drain(Duration grace) throws InterruptedException {
    // Not Setting.notNegative, which caps a time limit: a grace of centuries means "as long as it
    // takes", and the wait saturates rather than overflows.
    if (Objects.requireNonNull(grace, "grace").isNegative()) {
      throw new IllegalArgumentException("grace must not be negative: " + grace);
    }
    return operations.drain(grace);
  }

  /** The pool that runs the listeners and every request; for tests. */
  QueuedThreadPool threadPool() {
    return (QueuedThreadPool) jetty.getThreadPool();
  }

  /**
   * The API's listener; for tests, such as one that makes the send buffer of the connections it
   * accepts next small, so that a slow reader makes the server's writes wait within a few of them
   * rather than after the megabytes the kernel would otherwise let the buffer grow to.
   */
  ServerConnector connector() {
    return connector;
  }

  /** The accept queue the API's listener asked the kernel for; for tests. */
  int acceptQueueSize() {
    return connector.getAcceptQueueSize();
  }

  /** The bytes the bodies being read now hold (counted twice, as they are); for tests. */
  long bufferedBodyBytes() {
    return bodyBudget.held();
  }

  /** How many connections the header deadline watches now; for tests. */
  int watchedConnections() {
    return headerDeadline.watched();
  }

  /** How many requests are being answered right now (their bodies read, the answer not done). */
  public int inFlight() {
    return operations.inFlight();
  }

  /**
   * The operator console's page, {@code http://host:port/console}, when it is enabled ({@link
   * Builder#console}).
   */
  public Optional<URI> consoleUri() {
    ServerConnector c = consoleConnector;
    return c == null ? Optional.empty() : Optional.of(uri(c, "/console"));
  }

  /**
   * Whether {@code host} is a loopback address or name (resolved without a lookup when literal).
   */
  private static boolean loopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /**
   * Stops listening; requests in flight are cut. The steward stays open. A serve still running when
   * Jetty's thread pool stops has its thread interrupted; the steward's journal does not notice
   * (SPEC.md 60.1, "Interrupted serves"), so the steward serves on.
   */
  @Override
  public void close() {
    try {
      jetty.stop();
      // A server built on a bound address and never started holds its socket still (Jetty's stop
      // of a server that never started closes nothing); a no-op once stopped.
      connector.close();
      if (consoleConnector != null) {
        consoleConnector.close();
      }
    } catch (Exception e) {
      throw new IllegalStateException("stopping the HTTP server failed", e);
    }
  }

  /**
   * The refusal of a request target this server does not take, decided from the head alone: an
   * absolute-form target naming a scheme other than {@code http} ({@link #foreignScheme}), a path
   * with a dot segment ({@link #dotSegment}), or one with {@code ;}-parameters ({@link
   * #pathParameter}).
   */
  private static Optional<Reply> targetRefused(Request request) {
    return foreignScheme(request).or(() -> dotSegment(request)).or(() -> pathParameter(request));
  }

  /**
   * The refusal of a path holding a {@code .} or {@code ..} segment, if it holds one. Jetty
   * resolves them before matching (RFC 3986 §5.2.4), so {@code /v1/./models} and {@code
   * /v1/models/../mesh/steward} would be served as {@code /v1/models} and {@code /v1/mesh/steward}.
   * A proxy in front that allows or denies paths as written, without resolving them first (RFC 3986
   * §6.2.2.3 makes that a choice, not a rule), would let through under a name it allows an endpoint
   * it means to deny. Browsers and curl resolve dot segments before sending (RFC 3986 §5.2), and no
   * endpoint's path holds one, so a target holding one was written so on purpose; it is refused as
   * the encoded forms ({@code %2e}) are.
   */
  private static Optional<Reply> dotSegment(Request request) {
    String raw = Objects.requireNonNullElse(request.getHttpURI().getPath(), "");
    // Every request comes here, and no endpoint's path holds a '.': split only the rare one that
    // does (a model id such as /v1/models/gpt-3.5).
    if (raw.indexOf('.') < 0) {
      return Optional.empty();
    }
    for (String segment : raw.split("/", -1)) {
      String bare = segment.indexOf(';') < 0 ? segment : segment.substring(0, segment.indexOf(';'));
      if (bare.equals(".") || bare.equals("..")) {
        return Optional.of(
            ErrorReply.invalid(
                400,
                "http_400",
                "the path "
                    + raw
                    + " holds a dot segment ('.' or '..'), which this server would resolve and a"
                    + " proxy in front may not: send the path with its dot segments resolved"
                    + " (RFC 3986 §5.2.4)"));
      }
    }
    return Optional.empty();
  }

  /** The address of the request's connection's other end, when it is an IP address. */
  private static Optional<java.net.InetAddress> peer(Request request) {
    return request.getConnectionMetaData().getRemoteSocketAddress()
            instanceof java.net.InetSocketAddress a
        ? Optional.ofNullable(a.getAddress())
        : Optional.empty();
  }

  /**
   * Whether the request framed a body that is still unread when it is answered from its head: a
   * length above zero, or a transfer coding. A request with one is answered with its connection
   * closed, so that the unread bytes are never taken for the next request's head.
   */
  private static boolean sentABody(Request request) {
    return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
  }

  /**
   * The refusal of an absolute-form target whose scheme is not {@code http}, if it is one. Both
   * listeners speak plain HTTP, yet Jetty would serve {@code POST https://host/v1/chat/completions}
   * as if the target had said {@code http}, and {@code ftp://…} too: a request meant for a TLS
   * origin (a proxy-style target forwarded as it came) would be served over a connection no one
   * secured, its request carrying a scheme it did not arrive by. Jetty gives an origin-form target
   * the listener's own scheme, {@code http}, so any other scheme was written in the target.
   */
  private static Optional<Reply> foreignScheme(Request request) {
    String scheme = request.getHttpURI().getScheme();
    if (scheme == null || scheme.equalsIgnoreCase("http")) {
      return Optional.empty();
    }
    return Optional.of(
        ErrorReply.invalid(
            400,
            "http_400",
            "the request target names the scheme "
                + scheme
                + ", which this listener does not speak: it is plain HTTP; send the path alone"
                + " (origin form) or an http:// target"));
  }

  /**
   * The refusal of a target whose path holds a {@code ;}, if it does. Jetty strips {@code ;…} from
   * each segment before matching, so {@code /v1/mesh/steward;x} and {@code
   * /v1/chat/completions;a=b} would be served as the paths without it; a proxy in front that allows
   * or denies paths as written would then let through, under a name it does not know, an endpoint
   * it means to deny. No endpoint takes parameters, so the path is answered as one that names none.
   * The one exception is a model id ({@link Endpoints#namesOneModel}), which may hold a {@code ;}
   * that a client leaves unescaped: it is read as written, {@code ;} included, so nothing is served
   * under a name other than the one a proxy saw.
   */
  private static Optional<Reply> pathParameter(Request request) {
    String raw = Objects.requireNonNullElse(request.getHttpURI().getPath(), "");
    if (raw.indexOf(';') < 0 || Endpoints.namesOneModel(raw)) {
      return Optional.empty();
    }
    return Optional.of(
        ErrorReply.invalid(
            404,
            "not_found",
            "no endpoint at "
                + raw
                + ": no path here takes ;-parameters (only a model id, after /v1/models/, may"
                + " hold a ';')"));
  }

  /**
   * Jetty's side: the console's listener is answered here; every other request goes through Jetty's
   * {@link SizeLimitHandler} to {@link Api}. The size limit refuses a declared {@code
   * Content-Length} over {@code maxBodyBytes} before any of the body is read, and fails a body that
   * grows past it while it is read; both reach {@link JsonErrors} as a 413.
   */
  private final class Glue extends Handler.Wrapper {
    private final Api api;

    Glue(SizeLimitHandler limit, Api api) {
      super(limit);
      this.api = api;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      headerDeadline.handling(request);
      NoInterimForHttp10.install(request);
      String id = RequestId.next();
      response.getHeaders().put(RequestId.HEADER, id);
      request.setAttribute(RequestId.HEADER, id);
      ConsoleEndpoints c = console;
      if (c != null && request.getConnectionMetaData().getConnector() == consoleConnector) {
        // Read-only: no body is read. One that was sent is drained within bounds, then discarded
        // with the connection, as on the API listener (answerUnread).
        Optional<Reply> refused =
            targetRefused(request)
                .or(() -> UnknownMethod.refusal(request.getMethod(), ConsoleEndpoints.METHODS));
        Reply reply =
            refused.orElseGet(
                () ->
                    c.handle(
                        request.getMethod(),
                        Request.getPathInContext(request),
                        Objects.requireNonNullElse(request.getHttpURI().getQuery(), ""),
                        Optional.ofNullable(request.getHeaders().get(HttpHeader.HOST)),
                        peer(request),
                        id));
        ConsoleEndpoints.HEADERS.forEach((k, v) -> response.getHeaders().put(k, v));
        // A GET without a body has length -1 (none declared), not 0: every console answer closed
        // its connection, so a page polling the JSON opened a new one for each poll. A target
        // refused 400 closes it, as on the API's listener.
        if (sentABody(request) || refused.filter(r -> r.status() == 400).isPresent()) {
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        // Closed with the body unread, the connection was reset under a client still sending it,
        // which then never read this answer.
        Callback then =
            sentABody(request) && !toldNotToSend(request)
                ? drainingThen(request, callback)
                : callback;
        try {
          write(reply, request, response, then, OpenAiServer::notTold);
        } catch (Throwable t) {
          callback.failed(t);
        }
        return true;
      }
      // Decided from the request line alone, before the size limit and before any of the body is
      // read: answered only once its body had arrived, a method this server does not know would
      // be told 413 if sent with an oversized body, 408 at the deadline if its body stalled, and,
      // had it asked for 100 Continue, to upload a body only to see it refused.
      Optional<Reply> target = targetRefused(request);
      if (target.isPresent()) {
        api.answerUnread(request, response, callback, target.get(), true);
        return true;
      }
      Optional<Reply> unknown =
          UnknownMethod.refusal(request.getMethod(), Endpoints.SERVER_METHODS);
      if (unknown.isPresent()) {
        api.answerUnread(request, response, callback, unknown.get(), sentABody(request));
        return true;
      }
      return super.handle(request, response, callback);
    }
  }

  /**
   * The API's side: read the body within the deadline without holding a thread ({@link
   * BodyReader}), check it is JSON, hand it over, write the reply.
   */
  private final class Api extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      Optional<Reply> refused = refusedUnread(request);
      if (refused.isPresent()) {
        answerUnread(request, response, callback, refused.get(), true);
        return true;
      }
      BodyReader.read(
          request,
          bodyDeadline.toMillis(),
          bodyBudget,
          (outcome, body, failure) -> {
            switch (outcome) {
              case READ -> answer(request, response, callback, () -> reply(request, body));
              case TIMED_OUT ->
                  bodyTimedOut(
                      "the body did not arrive within " + bodyDeadline.toMillis() + " ms",
                      response,
                      callback);
              // The body is partly read and the client still sending it: drained as a 413's is.
              case BUSY ->
                  answerAndDrain(
                      request,
                      new Reply.Json(
                          429,
                          ErrorReply.body(
                              "rate_limit_error",
                              "overloaded",
                              "the server holds as many request bodies as it may ("
                                  + bodyBudget.limit()
                                  + " bytes); retry shortly",
                              Optional.empty()),
                          Reply.Retry.AFTER_A_SECOND),
                      response,
                      callback);
              // The body grew past the size limit: answered here rather than through JsonErrors,
              // since failing the callback completes the exchange, and Jetty would then close
              // the connection under the drain.
              case FAILED -> {
                if (failure instanceof HttpException e && e.getCode() == 413) {
                  response.getHeaders().put(HttpHeader.CONNECTION, "close");
                  answer(
                      request,
                      response,
                      drainingThen(request, callback),
                      () -> ErrorReply.bodyTooLarge(maxBodyBytes));
                } else if (failure instanceof TimeoutException) {
                  // The connection's idle timeout, shorter than the body deadline, ran out while
                  // the body stalled: the client is still there, and is told as at the deadline.
                  bodyTimedOut(
                      "no byte of the body arrived for "
                          + request
                              .getConnectionMetaData()
                              .getConnection()
                              .getEndPoint()
                              .getIdleTimeout()
                          + " ms (the connection's idle timeout)",
                      response,
                      callback);
                } else {
                  // The client went away (Jetty's failure is a quiet one): no one to answer.
                  callback.failed(failure);
                }
              }
            }
          });
      return true;
    }

    /**
     * Answers a body that did not arrive in time, {@code why} saying which limit ran out (the body
     * deadline, or the connection's idle timeout where that is shorter), 408 {@code body_timeout},
     * and closes the connection: the rest of a body still owed is not waited for.
     */
    private void bodyTimedOut(String why, Response response, Callback callback) {
      answerAndClose(ErrorReply.invalid(408, "body_timeout", why), response, callback);
    }

    /**
     * Answers {@code reply}, decided from the head with none of the body read; with {@code close},
     * the connection closes after the answer rather than read the body to its end only to discard
     * it.
     */
    void answerUnread(
        Request request, Response response, Callback callback, Reply reply, boolean close) {
      if (!close) {
        answer(request, response, callback, () -> reply);
        return;
      }
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      // The unread body is drained before the close, as a 413's is (SPEC.md 70): closed with it
      // unread, the connection is reset under a client that writes its whole body before it
      // reads, and that client never reads this answer.
      answer(
          request,
          response,
          toldNotToSend(request) ? callback : drainingThen(request, callback),
          () -> reply);
    }

    /**
     * A reply decided from the request's head alone, before any of its body is read (a target or a
     * method this server does not take is refused before this, by {@link Glue}): a {@code
     * Transfer-Encoding} on HTTP/1.0 (400); a transfer coding the server does not undo (501); a
     * proxy's {@code CONNECT}; for a POST, an operator's answer (405 on its endpoints, 503 while
     * draining) or, on an endpoint that reads one, a body that cannot be read as JSON (415) or that
     * the head does not frame at all (411). Deciding these before the first read matters to a
     * client that sent {@code Expect: 100-continue}: Jetty answers {@code 100 Continue} when the
     * body is first read, so a refusal after that read has the client upload a body only to see it
     * refused. (A declared length over the limit is refused earlier still, by the size-limit
     * handler.)
     */
    private Optional<Reply> refusedUnread(Request request) {
      // Most requests have no Transfer-Encoding: its three checks read the list only when it is
      // there (each reading is a stream pipeline, on every serve otherwise).
      boolean coded = request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
      if (coded && request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_1_0) {
        // RFC 9112 §6.1: HTTP/1.0 has no transfer codings, so an HTTP/1.0 hop in front may have
        // forwarded this body by other framing than ours; serving it (Jetty read it as chunked,
        // and kept the connection for the next request) risks serving what no client sent.
        return Optional.of(
            ErrorReply.invalid(
                400,
                "http_400",
                "HTTP/1.0 has no Transfer-Encoding (RFC 9112 §6.1): send the body with a"
                    + " Content-Length, or send the request as HTTP/1.1"));
      }
      Optional<String> quoted = coded ? quotedTransferCoding(request) : Optional.empty();
      if (quoted.isPresent()) {
        return Optional.of(
            ErrorReply.invalid(
                400,
                "http_400",
                "Transfer-Encoding holds the quoted string "
                    + quoted.get()
                    + " where a transfer coding belongs: a coding is named by a token, never quoted"
                    + " (RFC 9112 §7), and an empty one names none; send Transfer-Encoding:"
                    + " chunked alone, or a Content-Length"));
      }
      List<String> codings = coded ? foreignTransferCodings(request) : List.of();
      if (!codings.isEmpty()) {
        return Optional.of(
            ErrorReply.invalid(
                501,
                "unsupported_transfer_coding",
                "send the body with Transfer-Encoding chunked alone, or with a Content-Length;"
                    + " the transfer coding "
                    + String.join(", ", codings)
                    + " is not decoded here"));
      }
      String method = request.getMethod();
      if ("CONNECT".equals(method)) {
        // A proxy's method: its target is a host and port, not a path. Routed as a path, it would
        // be answered 404 "no endpoint at /", its connection kept open though the client asked to
        // close it.
        return Optional.of(
            ErrorReply.invalid(
                    405,
                    "method_not_allowed",
                    "CONNECT is not served: this server is no proxy; send GET or POST to a /v1/"
                        + " path")
                .allowing(Endpoints.SERVER_METHODS));
      }
      if (!"POST".equals(method)) {
        return Optional.empty();
      }
      Optional<Reply> operator = operations.answer(method, Request.getPathInContext(request));
      if (operator.isPresent()) {
        return operator;
      }
      if (!Endpoints.readsBody(Request.getPathInContext(request))) {
        return Optional.empty();
      }
      Optional<Reply> media =
          unreadableBody(request)
              .map(why -> ErrorReply.invalid(415, "unsupported_media_type", why));
      if (media.isPresent() || framesABody(request)) {
        return media;
      }
      // RFC 9112 §6.3: a request with neither field has no body, so what the client sent after
      // its head is read as its next request. Refused "the body must be one JSON object"
      // (not_json), it would be told the wrong fault, and its JSON then refused as a malformed
      // request line.
      return Optional.of(
          ErrorReply.invalid(
              411,
              "length_required",
              "the request has no body: send it with a Content-Length or with"
                  + " Transfer-Encoding: chunked"));
    }

    /** Whether the head frames a body, empty or not: a Content-Length or a transfer coding. */
    private static boolean framesABody(Request request) {
      return request.getHeaders().contains(HttpHeader.CONTENT_LENGTH)
          || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    /**
     * The first element of the request's {@code Transfer-Encoding} list that is a quoted string, if
     * one is. Jetty's parser asks only that chunked come last, so {@code "", chunked} reached the
     * binding, whose reading of the list took the quotes off and answered 501 for a transfer coding
     * with an empty name. A quoted string is no coding at all (RFC 9112 §7 names codings by
     * tokens), so the list is malformed.
     */
    private static Optional<String> quotedTransferCoding(Request request) {
      return request.getHeaders().getCSV(HttpHeader.TRANSFER_ENCODING, true).stream()
          .map(String::strip)
          .filter(element -> element.startsWith("\""))
          .findFirst();
    }

    /**
     * The transfer codings the request declares besides {@code chunked}, each as sent. Jetty undoes
     * chunked framing only, so with any other coding the body it hands over is still coded: a
     * gzipped body would be parsed as JSON (RFC 9112 §6.1 asks for 501 for a coding not
     * understood). Its parser already refuses codings that do not end in exactly one {@code
     * chunked}, since the body's length cannot be told.
     */
    private static List<String> foreignTransferCodings(Request request) {
      return request.getHeaders().getCSV(HttpHeader.TRANSFER_ENCODING, false).stream()
          .filter(coding -> !coding.strip().equalsIgnoreCase("chunked"))
          .toList();
    }

    /**
     * The reply to a request whose whole body has been read and whose head {@link #refusedUnread}
     * let through. The operator is asked again: a drain may have begun while the body arrived.
     */
    private Reply reply(Request request, byte[] body) {
      // HEAD is GET without the body (RFC 9110 §9.3.2), which Jetty leaves out of a HEAD's reply:
      // served as itself, a load balancer's HEAD /healthz would be answered 405. An unknown
      // method never comes here
      // (Glue refuses it from the request line).
      String method = "HEAD".equals(request.getMethod()) ? "GET" : request.getMethod();
      String raw = Objects.requireNonNullElse(request.getHttpURI().getPath(), "");
      // Jetty's path has any ';…' stripped from each segment; a model id keeps its ';'.
      String path =
          raw.indexOf(';') >= 0 && Endpoints.namesOneModel(raw)
              ? raw
              : Request.getPathInContext(request);
      return operations
          .answer(method, path)
          .orElseGet(
              () ->
                  endpoints.handle(
                      method,
                      path,
                      Objects.requireNonNullElse(request.getHttpURI().getQuery(), ""),
                      body,
                      String.valueOf(request.getAttribute(RequestId.HEADER))));
    }

    /**
     * Writes the reply {@code decide} gives, inside the request's scope and counted by the drain.
     */
    private void answer(Request request, Response response, Callback done, Supplier<Reply> decide) {
      String method = request.getMethod();
      String path = Request.getPathInContext(request);
      // Jetty's error handler, which writes the 500 of a failed answer, leaves its scope to this.
      // Marked only where there is a scope to leave: the attribute costs a map per request.
      if (scope.isPresent()) {
        request.setAttribute(SCOPED, true);
      }
      // Counted until the answer is written, so that a drain waits for it to reach the client.
      operations.entered();
      Callback callback = Callback.from(done, operations::left);
      RequestScope.@Nullable Opened opened = null;
      ScopeStatus told = new ScopeStatus(null);
      try {
        // Inside the try: the JVM failing in the scope's open passes on as a failure of this
        // answer (500), counted out as any other.
        opened = openScope(method, path, request);
        told = new ScopeStatus(opened);
        Reply reply = decide.get();
        if (operations.draining()) {
          // This server is about to stop: the client's next request, a resend of a 503
          // shutting_down included, goes on a new connection, which its replacement can take.
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        write(reply, request, response, callback, told);
      } catch (Throwable t) {
        ThrowableWords.log(
            t,
            e -> LOG.debug("answering {} failed", request.getHttpURI(), e),
            kind ->
                LOG.debug(
                    "answering {} failed: {}, which cannot be printed",
                    request.getHttpURI(),
                    kind));
        told.unlessHeard(HttpStatus.INTERNAL_SERVER_ERROR_500);
        callback.failed(t);
      } finally {
        if (opened != null) {
          try {
            opened.close();
          } catch (RuntimeException | Error e) {
            JvmFailure.passIfFailing(e);
            scopeFailed("closing the request scope failed; ignored", e);
          }
        }
      }
    }

    /**
     * The request scope's ear for one answer: told the status the client is sent, as it is set (a
     * streamed reply may be answered by an error reply in its place, and a reply that fails to
     * render by the 500), and remembering whether it was, so that a reply that throws before it
     * sets one is told the 500 that Jetty's error handler ({@link JsonErrors}) answers. Without a
     * scope it tells nothing.
     */
    private static final class ScopeStatus implements IntConsumer {
      private final RequestScope.@Nullable Opened opened;
      private volatile boolean heard;

      ScopeStatus(RequestScope.@Nullable Opened opened) {
        this.opened = opened;
      }

      @Override
      public void accept(int status) {
        heard = true;
        if (opened != null) {
          tell(opened, status);
        }
      }

      /** Tells {@code status} if no status was told yet (a started stream keeps the one it was). */
      void unlessHeard(int status) {
        if (!heard) {
          accept(status);
        }
      }
    }

    /**
     * Tells the scope the status sent, contained like {@link OpenAiServer#openScope} and the
     * scope's close: a reply not written would keep what it holds (a stream keeps its serve's
     * concurrency slot until it is written out). Contained for an {@code Error} too (the
     * application's tracing class missing at run time, an assertion): thrown out of {@code open},
     * it escaped before the answer was counted out, leaving the request in flight for good and a
     * drain unfinished; out of {@code status}, it turned a served reply into a 500. Save the JVM
     * failing ({@link JvmFailure}: an {@code OutOfMemoryError}, not a stack overflow), which passes
     * here as it passes the steward's listeners and the router: the answer it breaks is a 500 if
     * nothing was sent yet, and the request is counted out all the same.
     */
    private static void tell(RequestScope.Opened opened, int status) {
      try {
        opened.status(status);
      } catch (RuntimeException | Error e) {
        JvmFailure.passIfFailing(e);
        scopeFailed("the request scope refused the status; ignored", e);
      }
    }

    /**
     * Why a POST body cannot be read as the JSON it must be, if it cannot: it is not declared as
     * {@code application/json} exactly once (two declarations could be read two ways), or it is
     * declared compressed, which the binding does not undo (its bytes would be refused as not
     * UTF-8, naming the wrong fault).
     */
    private static Optional<String> unreadableBody(Request request) {
      List<String> types = request.getHeaders().getValuesList(HttpHeader.CONTENT_TYPE);
      if (types.size() > 1) {
        return Optional.of("send one Content-Type: application/json, not " + types.size());
      }
      if (types.isEmpty() || !JsonMediaType.accepts(types.get(0))) {
        return Optional.of(
            "send the body as Content-Type: application/json (UTF-8), not "
                + (types.isEmpty() ? "no Content-Type" : types.get(0)));
      }
      // Read as a list (RFC 9110 §8.4, §5.6.1): "identity, identity" names no coding, and an
      // empty element names none either (a quoted one, "", is kept, and refused: no coding has
      // that name). Matched field by field, it would be refused as a compressed body, and so would
      // an empty Content-Encoding, whose message would then name no coding at all.
      List<String> codings =
          !request.getHeaders().contains(HttpHeader.CONTENT_ENCODING)
              ? List.of()
              : request.getHeaders().getCSV(HttpHeader.CONTENT_ENCODING, true).stream()
                  .map(String::strip)
                  .filter(c -> !c.isEmpty() && !c.equalsIgnoreCase("identity"))
                  .toList();
      if (!codings.isEmpty()) {
        return Optional.of(
            "send the body uncompressed; Content-Encoding "
                + String.join(", ", codings)
                + " is not decoded here");
      }
      return Optional.empty();
    }

    /**
     * Answers {@code reply} and closes the connection: a body that did not arrive in time (408) or
     * that the server had no room to hold (429). Inside the request's scope as every other answer
     * on this listener, so that an application's timers and traces count these refusals too.
     */
    private void answerAndClose(Reply reply, Response response, Callback callback) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      answer(response.getRequest(), response, callback, () -> reply);
    }

    /**
     * Answers {@code reply} to a request whose body was being read, closes the connection, and
     * drains what the client still sends of it within bounds first ({@link #drainingThen}).
     */
    private void answerAndDrain(
        Request request, Reply reply, Response response, Callback callback) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      answer(request, response, drainingThen(request, callback), () -> reply);
    }
  }

  /**
   * {@code callback}, completed only once what the client still sends of a body refused with its
   * connection closed (413, a refusal from the head, 429 {@code overloaded}) was drained within
   * {@link #refusedBodyDrain}'s bounds ({@link RefusedBodyDrain}): the connection closes when the
   * exchange completes.
   */
  private Callback drainingThen(Request request, Callback callback) {
    return Callback.from(
        () ->
            RefusedBodyDrain.start(
                request.getConnectionMetaData().getConnection().getEndPoint(),
                request.getComponents().getScheduler(),
                request.getComponents().getByteBufferPool(),
                refusedBodyDrain,
                callback),
        callback::failed);
  }

  /**
   * A client that asked {@code Expect: 100-continue} and was refused from the head (its declared
   * length over the limit) was never asked for its body, and sends none: there is nothing to drain,
   * and waiting for it would hold the connection for the drain's time bound. An HTTP/1.0 client's
   * expectation is ignored (no interim answers there, NoInterimForHttp10): it sends its body, and
   * is drained as any other.
   */
  private boolean sendsNoBody(Request request) {
    return request.getLength() > maxBodyBytes && toldNotToSend(request);
  }

  /**
   * Whether the client waits to be asked for its body ({@code Expect: 100-continue} on HTTP/1.1)
   * and, refused from the head, never was: it sends none, so nothing is drained.
   */
  private static boolean toldNotToSend(Request request) {
    return request.getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_1_0
        && request.getHeaders().contains(HttpHeader.EXPECT, "100-continue");
  }

  /** Opens the application's scope around a {@code /v1/} request, if one is set. */
  private RequestScope.@Nullable Opened openScope(String method, String path, Request request) {
    if (scope.isEmpty() || !path.startsWith("/v1/")) {
      return null;
    }
    try {
      return scope.get().open(method, path, name -> request.getHeaders().get(name));
    } catch (RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      scopeFailed("opening the request scope failed; answering without it", e);
      return null;
    }
  }

  /**
   * Logs what the application's request scope threw, which is then ignored. Its words are foreign
   * code that may throw in turn: out of the logging, that throw would leave the catch that contains
   * the scope, and turn a served reply into a 500 (SPEC.md 70).
   */
  private static void scopeFailed(String message, Throwable e) {
    ThrowableWords.log(
        e,
        t -> LOG.warn(message, t),
        kind -> LOG.warn("{}: {}, which cannot be printed", message, kind));
  }

  /** The request attribute that says {@link Api#answer} holds the request's scope. */
  private static final String SCOPED = "org.meshjava.openai.scoped";

  /** Where no request scope is told the status sent. */
  private static void notTold(int status) {}

  /**
   * Writes the reply and completes {@code callback}; {@code told} hears the status sent, before the
   * client can read it. A whole JSON reply is written without blocking, so a client that does not
   * read its answer holds no thread either; like a stream's writes, it waits for its client the
   * delivery timeout at most ({@link Delivery}).
   */
  private void write(
      Reply reply, Request request, Response response, Callback callback, IntConsumer told)
      throws IOException {
    switch (reply) {
      case Reply.Json asked -> {
        // Rendered before the status is set: a throw while rendering is answered 500.
        RenderedReply rendered =
            RenderedReply.of(
                asked,
                request.getAttribute(RequestId.HEADER) instanceof String id
                    ? id
                    : RequestId.next());
        Reply.Json json = rendered.reply();
        told.accept(json.status());
        response.setStatus(json.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        switch (json.retry()) {
          case UNSAID -> {}
          case AFTER_A_SECOND ->
              response
                  .getHeaders()
                  .put(HttpHeader.RETRY_AFTER, Integer.toString(Endpoints.RETRY_AFTER_SECONDS));
          case FUTILE -> response.getHeaders().put(SHOULD_RETRY, "false");
        }
        json.allow().ifPresent(a -> response.getHeaders().put(HttpHeader.ALLOW, a));
        byte[] bytes = rendered.bytes();
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
        new Delivery(request, response, deliveryTimeout)
            .write(true, ByteBuffer.wrap(bytes), callback);
      }
      case Reply.Text text -> {
        told.accept(text.status());
        response.setStatus(text.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, text.contentType());
        byte[] bytes = text.body().getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
        new Delivery(request, response, deliveryTimeout)
            .write(true, ByteBuffer.wrap(bytes), callback);
      }
      case Reply.Streamed streamed -> {
        response.setStatus(streamed.status());
        StreamChannel channel =
            new StreamChannel(
                new Delivery(request, response, deliveryTimeout), response, writeTimeout, told);
        Optional<Reply> instead = streamed.producer().run(channel);
        if (!channel.started()) {
          write(
              instead.orElseThrow(() -> new IllegalStateException("a stream sent nothing")),
              request,
              response,
              callback,
              told);
          return;
        }
        channel.end(callback);
      }
    }
  }

  /**
   * A streamed reply's events onto the response, each written and flushed as it is sent, on the
   * serving thread: a client that reads slowly slows its own engine, and one that disconnects makes
   * the next send fail, which cancels the engine. A send that the client does not take within the
   * write timeout closes the connection and fails the same way, so a reader that stops cannot keep
   * a serve slot (and its grant's reservation) for longer than that.
   *
   * <p>The write timeout alone bounds each send, not the reply: a client that takes each piece just
   * before it runs out (a few bytes at a time) held its serve for up to {@code max_tokens} write
   * timeouts. So the sends go through the reply's {@link Delivery}, which sums the time they spend
   * waiting for their client and closes the connection once that sum reaches the delivery timeout,
   * as for a reader that stopped. Only waiting counts: a send the socket takes at once costs
   * nothing, so a client that reads as fast as the engine produces is never cut, however long the
   * generation runs (the steward's engine deadline bounds that).
   */
  private static final class StreamChannel implements Reply.Channel {
    private final Delivery delivery;
    private final Response response;
    private final Duration writeTimeout;
    private final IntConsumer told;
    private boolean started;
    private boolean alive = true;

    StreamChannel(Delivery delivery, Response response, Duration writeTimeout, IntConsumer told) {
      this.delivery = delivery;
      this.response = response;
      this.writeTimeout = writeTimeout;
      this.told = told;
    }

    @Override
    public boolean send(Reply.Event event) {
      if (!alive) {
        return false;
      }
      if (!started) {
        told.accept(200);
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        started = true;
      }
      alive = await(false, event.wire());
      return alive;
    }

    /**
     * Writes and waits at most the write timeout; on failure or timeout the connection closes. The
     * reply's delivery timeout, running out first, closes it too, which fails the write.
     */
    private boolean await(boolean last, ByteBuffer bytes) {
      Callback.Completable done = new Callback.Completable();
      delivery.write(last, bytes, done);
      try {
        done.get(writeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        return true;
      } catch (TimeoutException e) {
        LOG.debug("the client of a stream read nothing for {}; closing it", writeTimeout);
        delivery.close(e);
        return false;
      } catch (ExecutionException e) {
        LOG.debug("the client of a stream went away, or was cut", e.getCause());
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        delivery.close(e);
        return false;
      }
    }

    @Override
    public boolean started() {
      return started;
    }

    void end(Callback callback) {
      if (alive && await(true, ByteBuffer.allocate(0))) {
        callback.succeeded();
      } else {
        callback.failed(new IOException("the client of a stream went away"));
      }
    }
  }

  /**
   * Errors Jetty raises itself (a bad request line, headers too large, a body over the size limit,
   * an HTTP/2 preface) in OpenAI's shape too; the size limit's 413 carries its own code, {@code
   * body_too_large}, and the 426 says which protocol is spoken.
   */
  private final class JsonErrors extends ErrorHandler {
    private final long maxBodyBytes;
    private final int headerBytes;

    JsonErrors(long maxBodyBytes, int headerBytes) {
      this.maxBodyBytes = maxBodyBytes;
      this.headerBytes = headerBytes;
    }

    /**
     * Every method's error gets its body. Jetty's default writes one for GET, HEAD and POST only,
     * which left an HTTP/2 prior-knowledge preface (method {@code PRI}) with a bare 426, and any
     * other method's parser error (431, 414, …) with an empty body.
     */
    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    /**
     * Jetty's own refusals inside the request scope: the size limit's 413, a body whose chunked
     * framing breaks (400), a head over the size limit (431), each on a {@code /v1/} path that
     * never reached {@link Api#answer}, so that an operator counting answers by status counts these
     * too. A request {@code answer} took is scoped there already (its 500 included); one refused
     * before its request line was read has no path, and no scope.
     *
     * <p>A connection closed while a request on it was still arriving or waiting to be handled (the
     * server stopping, or the header deadline closing it as its next bytes came) is no failure of
     * ours: Jetty fails that exchange with an {@link EofException} and asks for its error reply as
     * for any throw, a 500, on a request of its own making ({@code GET /badRequest}) when the head
     * had not arrived whole. Logged as an internal error, every half-sent head a stop met was an
     * ERROR line. No one is left to read a reply, so none is written and nothing is scoped: the
     * exchange is failed with that cause, which ends it with its connection.
     */
    @Override
    protected void generateResponse(
        Request request,
        Response response,
        int code,
        String message,
        Throwable cause,
        Callback callback) {
      if (code == 500 && cause instanceof EofException) {
        LOG.debug(
            "the connection of {} closed before it was answered; nothing to answer",
            request.getHttpURI().getPath(),
            cause);
        callback.failed(cause);
        return;
      }
      RequestScope.@Nullable Opened opened =
          request.getAttribute(SCOPED) == null ? openUnscoped(request) : null;
      if (opened == null) {
        refusal(request, response, code, message, cause, callback);
        return;
      }
      try {
        Api.tell(opened, code);
        refusal(request, response, code, message, cause, callback);
      } finally {
        try {
          opened.close();
        } catch (RuntimeException | Error e) {
          JvmFailure.passIfFailing(e);
          scopeFailed("closing the request scope failed; ignored", e);
        }
      }
    }

    /**
     * The scope of a request Jetty refused itself, if it came to the API's listener with a method
     * and a {@code /v1/} path. The path is the one {@link Api#answer} scopes, %-escapes decoded:
     * read raw, {@code /%761/chat/completions} refused 413 went unscoped though the same request
     * under its limit is scoped as {@code /v1/chat/completions}. The console's listener serves no
     * API: its refusals (a head too large for {@code /v1/models} sent there) are not the API's
     * answers, and an operator counting the API's answers by status must not count them.
     */
    private RequestScope.@Nullable Opened openUnscoped(Request request) {
      String method = request.getMethod();
      if (method == null
          || request.getHttpURI() == null
          || request.getHttpURI().getCanonicalPath() == null
          || request.getConnectionMetaData().getConnector() != connector) {
        return null;
      }
      return openScope(method, Request.getPathInContext(request), request);
    }

    private void refusal(
        Request request,
        Response response,
        int code,
        String message,
        Throwable cause,
        Callback callback) {
      if (code == 400 && message != null && BAD_UTF8.contains(message)) {
        json(
            response,
            ErrorReply.body(
                "invalid_request_error",
                "invalid_unicode",
                "the path is not well-formed UTF-8 once its %-escapes are decoded (an encoded"
                    + " surrogate, an overlong form, a byte that begins no character, or a"
                    + " character cut short)",
                Optional.of("model")
                    .filter(m -> request.getHttpURI().getPath().startsWith("/v1/models/"))),
            callback);
        return;
      }
      if (code == 500 && cause != null) {
        // A failure thrown past every catch of the API's own (the JVM failing: an engine's
        // OutOfMemoryError passes once its serve is settled) is ours, as any bug is: Jetty's
        // message is the throwable's toString, the Java class and its words, which a client has
        // no use for. Answered as every internal error is, logged under the reply's request id.
        String id = requestId(response);
        ThrowableWords.log(
            cause,
            t ->
                LOG.error(
                    "internal error answering {} ({})", request.getHttpURI().getPath(), id, t),
            kind ->
                LOG.error(
                    "internal error answering {} ({}): {}, which cannot be printed",
                    request.getHttpURI().getPath(),
                    id,
                    kind));
        response.getHeaders().put(SHOULD_RETRY, "false");
        json(response, id, ErrorReply.internalError(id).body(), callback);
        return;
      }
      if (code == 413) {
        // The rest of the body is not wanted: close rather than let Jetty drain it to keep the
        // connection (it does when the body comes in the head's own packets), as every other
        // refusal decided before the body is read does (SPEC.md 70); before the close, what the
        // client still sends is drained within bounds (drainingThen). A body that grew past the
        // limit while read is answered by Api, not here: by now Jetty has completed that exchange
        // and would close the connection under the drain.
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        json(
            response,
            requestId(response),
            ErrorReply.bodyTooLarge(maxBodyBytes).body(),
            sendsNoBody(request) ? callback : drainingThen(request, callback));
        return;
      }
      ObjectNode body =
          switch (code) {
            case 426 -> {
              // RFC 9110 §15.5.22: a 426 names the protocol to use.
              response.getHeaders().put(HttpHeader.UPGRADE, "HTTP/1.1");
              yield ErrorReply.body(
                  "invalid_request_error",
                  "http_426",
                  "this listener speaks HTTP/1.1 only; HTTP/2 (prior knowledge or h2c) is not"
                      + " served",
                  Optional.empty());
            }
            // Jetty's parser reports a malformed chunk (a size that is not hex, a missing CRLF) in
            // a body the way it reports a body cut short: "Early EOF", which a client still
            // connected and sending could not make sense of. Chunk extensions and trailer fields
            // over the header size limit end the same way, so the limit is named too.
            default -> {
              if (code == 400 || !request.getConnectionMetaData().isPersistent()) {
                // Every 400 of Jetty's is decided from the head. Its request checks (an
                // absolute-form target naming another authority than Host, a bad path) kept the
                // connection, unlike its parser's, and unlike every refusal decided from the head
                // alone (SPEC.md 70, "Request framing"). Any other refusal of its parser (a
                // request line over the limit, 414; an HTTP version not served, 505) closes the
                // connection after its reply too, and said nothing of it: the reply says so.
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
              }
              yield ErrorReply.body(
                  code >= 500 ? "server_error" : "invalid_request_error",
                  "http_" + code,
                  code == 400 && cause instanceof EofException
                      ? "the body ended before its framing said it would, or its chunked framing"
                          + " is malformed (each chunk: its size in hex, CRLF, its bytes, CRLF;"
                          + " then 0, CRLF, CRLF), or its chunk extensions or trailer fields"
                          + " exceed "
                          + headerBytes
                          + " bytes"
                      : message == null
                          ? "HTTP " + code
                          : ParserRefusal.words(code, message, cause, headerBytes).orElse(message),
                  Optional.empty());
            }
          };
      json(response, body, callback);
    }

    private static void json(Response response, ObjectNode body, Callback callback) {
      json(response, requestId(response), body, callback);
    }

    private static void json(Response response, String id, JsonNode body, Callback callback) {
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.getHeaders().put(RequestId.HEADER, id);
      Content.Sink.write(response, true, body.toString(), callback);
    }

    /**
     * Jetty clears the headers before writing its error, and a request it could not parse never
     * reached Glue: the id Glue drew, or a new one.
     */
    private static String requestId(Response response) {
      return response.getRequest().getAttribute(RequestId.HEADER) instanceof String id
          ? id
          : RequestId.next();
    }

    /**
     * Jetty's words for a path whose %-escapes decode to bytes that are not UTF-8, refused before
     * the request reaches the API. Answered {@code http_400} in those words, a model id holding an
     * encoded surrogate in {@code GET /v1/models/{model}} would be refused otherwise than the same
     * id escaped in a body's {@code model}, which is {@code invalid_unicode}; so it is here too.
     */
    private static final Set<String> BAD_UTF8 =
        Set.of(
            UriCompliance.Violation.BAD_UTF8_ENCODING.getDescription(),
            UriCompliance.Violation.TRUNCATED_UTF8_ENCODING.getDescription());
  }

  /** Configures an {@link OpenAiServer}. Not thread-safe. */
  public static final class Builder {
    private final Steward steward;
    private String host = "127.0.0.1";
    private int port = 0;
    private long maxBodyBytes = 1 << 20;
    private Optional<Integer> maxConcurrentServes = Optional.empty();
    private long defaultJouleCeilingUj = 1_000_000;
    private Duration bodyDeadline = Duration.ofSeconds(10);
    private long refusedBodyDrainBytes = 8L << 20;
    private Duration refusedBodyDrainTime = Duration.ofSeconds(3);
    private Duration headerDeadline = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofSeconds(30);
    private Duration writeTimeout = Duration.ofSeconds(10);
    private Duration deliveryTimeout = Duration.ofSeconds(60);
    private Optional<Integer> maxConnections = Optional.empty();
    private Duration limitedIdleTimeout = LIMITED_IDLE_TIMEOUT;
    private Duration threadIdleTimeout = THREAD_IDLE_TIMEOUT;
    private Optional<Long> maxBufferedBodyBytes = Optional.empty();
    private @Nullable String consoleHost;
    private int consolePort;
    private @Nullable Bound listening;
    private @Nullable Bound consoleListening;
    private Optional<Supplier<String>> metrics = Optional.empty();
    private Optional<RequestScope> scope = Optional.empty();
    private Consumer<ServeResult> afterSeal = result -> {};

    /**
     * The longest time limit a setter takes: ten years, far past any use and far short of where a
     * count in nanoseconds from now overflows. {@code mesh serve} holds its own settings to a year,
     * and may raise the idle timeout a few seconds past one.
     */
    public static final Duration MAX_TIME_LIMIT = Duration.ofDays(3650);

    private Builder(Steward steward) {
      this.steward = Objects.requireNonNull(steward, "steward");
    }

    /** The address to bind; the default is 127.0.0.1 (loopback only). */
    public Builder host(String v) {
      host = Objects.requireNonNull(v, "host");
      return this;
    }

    /** The port; 0 (the default) picks a free one, see {@link OpenAiServer#port()}. */
    public Builder port(int v) {
      port = listenPort("port", v);
      return this;
    }

    /** The largest body accepted; larger ones are answered 413. The default is 1 MiB. */
    public Builder maxBodyBytes(long v) {
      maxBodyBytes = Setting.atLeast("maxBodyBytes", v, 1, "must be positive: ");
      return this;
    }

    /**
     * How many serves may run at once over the whole server; beyond it a serve is answered 429.
     * Each backend also has its own limit ({@link
     * org.meshjava.core.ServingEngine#maxConcurrentServes()}), and the default here is their sum
     * (at most 1024), so that only a backend's own limit refuses.
     */
    public Builder maxConcurrentServes(int v) {
      maxConcurrentServes =
          Optional.of(Setting.atLeast("maxConcurrentServes", v, 1, "must be positive: "));
      return this;
    }

    /**
     * The joule ceiling for an ungranted request whose {@code metadata} names none. Never applied
     * to a granted request (§2.3). The default is 1,000,000 µJ.
     */
    public Builder defaultJouleCeilingUj(long v) {
      defaultJouleCeilingUj =
          Setting.atLeast("defaultJouleCeilingUj", v, 0, "must be non-negative: ");
      return this;
    }

    /**
     * How long a request's body may take to arrive, from the end of its headers; a body not
     * complete by then is answered 408 and the connection closed. It bounds how long a slow client
     * can keep a request open; no thread waits on it meanwhile. The default is 10 s, the most
     * {@link #MAX_TIME_LIMIT}.
     */
    public Builder bodyDeadline(Duration v) {
      bodyDeadline = positive("bodyDeadline", v);
      return this;
    }

    /**
     * How many bytes of a body refused with its connection closed (413, a refusal decided from the
     * head such as 415 or 501, 429 {@code overloaded}) are read and discarded before the close.
     * Closed with bytes unread, the connection is reset, and a client that sends its whole body
     * before reading its answer (Python's {@code http.client}) sees a broken pipe instead of the
     * refusal; one whose body ends within this bound reads it. Reading costs no memory (one small
     * buffer) and no waiting thread; the bound caps the bandwidth a refused client may take. The
     * default is 8 MiB: eight times the default body limit, enough for a body a client meant to
     * send whole (a document, an encoded image) past that limit. 0 drains nothing, closing at once.
     */
    public Builder refusedBodyDrainBytes(long v) {
      refusedBodyDrainBytes =
          Setting.atLeast("refusedBodyDrainBytes", v, 0, "must not be negative: ");
      return this;
    }

    /**
     * How long, after such a refusal is written, the rest of the refused body is read and discarded
     * (see {@link #refusedBodyDrainBytes}); a client still sending then is cut. It bounds how long
     * a slow or endless sender keeps a refused connection. The default is 3 s (at 8 MiB, a client
     * sending above about 22 Mbit/s finishes within it), the most {@link #MAX_TIME_LIMIT}.
     */
    public Builder refusedBodyDrainTime(Duration v) {
      refusedBodyDrainTime = positive("refusedBodyDrainTime", v);
      return this;
    }

    /**
     * How long a request's headers may take to arrive, from their first byte; a connection whose
     * headers are not complete by then is closed (within about two seconds after it). It bounds how
     * long a client that trickles its headers can hold a connection, which the idle timeout does
     * not: that restarts with every byte. A connection that sends nothing at all is left to the
     * idle timeout. The default is 10 s, the most {@link #MAX_TIME_LIMIT}.
     */
    public Builder headerDeadline(Duration v) {
      headerDeadline = positive("headerDeadline", v);
      return this;
    }

    /**
     * How many connections the API's listener holds at once. At the bound it accepts no more (new
     * ones wait in the kernel's accept queue) and closes each of its connections that has been idle
     * for a second, so that clients holding connections open and silent cannot lock others out, nor
     * take the file descriptors the journal needs. The default is 10,000, or fewer when the process
     * may open fewer than 13,334 files: three quarters of that limit, leaving at least 256 files.
     */
    public Builder maxConnections(int v) {
      maxConnections = Optional.of(Setting.atLeast("maxConnections", v, 1, "must be positive: "));
      return this;
    }

    /**
     * The idle timeout of a listener's connections while it holds as many as it may: {@link
     * OpenAiServer#LIMITED_IDLE_TIMEOUT} unless a test of the bound sets a shorter one to wait
     * less. Not public: an operator has no reason to tune it, and a longer one would let silent
     * connections lock waiting clients out for longer.
     */
    Builder limitedIdleTimeout(Duration v) {
      limitedIdleTimeout = positive("limitedIdleTimeout", v);
      return this;
    }

    /**
     * How long a request thread above the pool's minimum may sit idle before it is stopped: {@link
     * OpenAiServer#THREAD_IDLE_TIMEOUT} unless a test that counts threads after a burst sets a
     * shorter one to wait less. Not public, for the reason {@link #limitedIdleTimeout} is not.
     */
    Builder threadIdleTimeout(Duration v) {
      threadIdleTimeout = positive("threadIdleTimeout", v);
      return this;
    }

    /**
     * How many bytes the request bodies being read at once may hold, over all connections; a
     * request whose body does not fit is answered 429 {@code overloaded} with {@code Retry-After}
     * and its connection closed. Each body counts twice its size (its buffer and the copy handed
     * over). It bounds the memory that connections sending bodies slowly can hold, which {@link
     * #maxBodyBytes} bounds only per body. The default is a quarter of the JVM's maximum heap; it
     * is never less than twice {@link #maxBodyBytes}, so that one body of the largest size fits.
     */
    public Builder maxBufferedBodyBytes(long v) {
      maxBufferedBodyBytes =
          Optional.of(Setting.atLeast("maxBufferedBodyBytes", v, 1, "must be positive: "));
      return this;
    }

    /**
     * How long a connection may send nothing before it is closed. The default is 30 s, the most
     * {@link #MAX_TIME_LIMIT}.
     */
    public Builder idleTimeout(Duration v) {
      idleTimeout = positive("idleTimeout", v);
      return this;
    }

    /**
     * How long one piece of a streamed reply may wait for the client to take it; a client that
     * reads nothing for this long is disconnected, which stops its serve. It must be shorter than
     * the idle timeout. The default is 10 s, the most {@link #MAX_TIME_LIMIT}.
     */
    public Builder writeTimeout(Duration v) {
      writeTimeout = positive("writeTimeout", v);
      return this;
    }

    /**
     * How long, in all, the writes of one reply may wait for its client to take them. A streaming
     * client that reads just often enough to beat the {@linkplain #writeTimeout write timeout} (a
     * few bytes at a time) is disconnected once its reply's writes have waited this long together,
     * which stops its serve as a client that hangs up does: the tokens made so far are metered,
     * sealed and journalled. A whole JSON reply, written without holding a thread, is dropped with
     * its connection once its client has not taken it for this long, so that a client reading a few
     * bytes before each {@linkplain #idleTimeout idle timeout} cannot keep its bytes in memory for
     * longer. Time a write does not wait (the socket takes it at once) is not counted, so a client
     * that keeps up with its engine is never cut. The default is 60 s, the most {@link
     * #MAX_TIME_LIMIT}; one shorter than the write timeout bounds each write too.
     */
    public Builder deliveryTimeout(Duration v) {
      deliveryTimeout = positive("deliveryTimeout", v);
      return this;
    }

    /**
     * Enables the read-only operator console (SPEC.md §76) on its own listener at {@code host} and
     * {@code port} (0 picks a free one, see {@link OpenAiServer#consoleUri()}). Off unless called.
     * Use a loopback address (127.0.0.1) unless the console's readers are meant to reach it over
     * the network: it shows receipts, grant spend and the journal's state to whoever connects. The
     * listener holds at most 64 connections, apart from the API's, and treats them at that bound as
     * {@link #maxConnections} says.
     */
    public Builder console(String host, int port) {
      consolePort = listenPort("console port", port);
      consoleHost = Objects.requireNonNull(host, "host");
      return this;
    }

    /**
     * Listens on {@code bound}, an address bound ahead of the server (its host and port then
     * replace {@link #host} and {@link #port}); the server closes it when it closes.
     */
    public Builder listenOn(Bound bound) {
      listening = Objects.requireNonNull(bound, "bound");
      return this;
    }

    /**
     * Enables the operator console as {@link #console(String, int)} does, on {@code bound}, an
     * address bound ahead of the server; the server closes it when it closes.
     */
    public Builder console(Bound bound) {
      consoleListening = Objects.requireNonNull(bound, "bound");
      consolePort = 0;
      consoleHost = bound.host;
      return this;
    }

    /**
     * For tests in this package: {@code hook} is called with each sealed serve on the serving
     * thread, before its reply is made, so that what it throws stands for a bug of ours met after
     * the seal (no client request can cause one). None unless called.
     */
    Builder afterSeal(Consumer<ServeResult> hook) {
      afterSeal = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * Serves {@code GET /metrics} from {@code scrape}: a Prometheus text exposition (format 0.0.4)
     * produced at each request, such as a Micrometer {@code PrometheusMeterRegistry::scrape}.
     * Without it there is no {@code /metrics}.
     */
    public Builder metrics(Supplier<String> scrape) {
      metrics = Optional.of(Objects.requireNonNull(scrape, "scrape"));
      return this;
    }

    /** Opens {@code v} around each {@code /v1/} request (for tracing); see {@link RequestScope}. */
    public Builder requestScope(RequestScope v) {
      scope = Optional.of(Objects.requireNonNull(v, "scope"));
      return this;
    }

    /** {@code v}, a TCP port to listen on: 0 (a free one) to 65535. */
    private static int listenPort(String setting, int v) {
      return Setting.within(setting, v, 0, 65_535, "must be 0-65535: ");
    }

    /** {@code v}, a time limit: longer than zero and at most {@link #MAX_TIME_LIMIT}. */
    private static Duration positive(String setting, Duration v) {
      return atMostTenYears(setting, Setting.positive(setting, v, "must be positive: "));
    }

    /**
     * {@code v}, a time limit of at most {@link #MAX_TIME_LIMIT}. The server and its upstream
     * clients count their limits in milliseconds and in nanoseconds from now, where a longer one
     * overflows a {@code long}: a body deadline of {@code Long.MAX_VALUE} seconds would answer
     * every request 500 "long overflow", an idle timeout so long would fail {@link #build()} in the
     * JDK's words, and an upstream's timeout of {@code Long.MAX_VALUE} nanoseconds would wrap past
     * the clock and time every exchange out at once; so each is refused when it is set, naming the
     * setting.
     */
    static Duration atMostTenYears(String setting, Duration v) {
      if (v.compareTo(MAX_TIME_LIMIT) > 0) {
        throw new IllegalArgumentException(
            setting + " must be at most " + MAX_TIME_LIMIT + " (ten years): " + v);
      }
      return v;
    }

    /** Builds the server; call {@link OpenAiServer#start()} to listen. */
    public OpenAiServer build() {
      return new OpenAiServer(this);
    }
  }
}
