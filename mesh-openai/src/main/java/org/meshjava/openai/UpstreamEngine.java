package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DescribedEngine;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineBuilder;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.Setting;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.Tokenizer;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.internal.OperatorText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backend that forwards to an OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, TGI,
 * another mesh) with its own fidelity and cost profile.
 *
 * <p><b>Energy.</b> The work runs on another machine, which no counter on this host can see. The
 * engine therefore declares no energy domains, so the steward's meter grades every figure it seals
 * {@code Estimator}, from this engine's cost profile (§3.3): claiming a reading of this host's
 * counters for work done elsewhere would be false.
 *
 * <p><b>Tokens.</b> The engine is handed the canonical {@link Prompt} text as byte tokens ({@link
 * #tokenizer()}), reads the messages back out of it and forwards them, asking for {@code
 * max_tokens} of the upstream's own tokens. The upstream's token ids never reach this host, so the
 * reply's text is committed to as Unicode code points, one id each, and counted as the upstream
 * counts it ({@link TokenAccounting#REMOTE_USAGE}): its {@code usage} report (asked for in a stream
 * with {@code stream_options.include_usage}) gives the serve's {@code tokens_in} and {@code
 * tokens_out}, which the receipt, the estimate and the finish reason follow. The text is never cut
 * here. A reply the upstream counts over {@code max_tokens}, or one without a usage report, fails
 * the serve: characters are not tokens, and no count is guessed for a reply that ran to its end.
 * The one declared fallback is a stream the caller stopped before the report came ({@link
 * TokenAccounting#REMOTE_STREAM_DELTAS}).
 *
 * <p><b>Weights.</b> The engine binds no weights ({@link #weights()} is empty, so receipts carry
 * neither {@code weights_digest} nor {@code precision}): nothing on this host can see what the
 * upstream loads or at what precision it computes, and a digest the operator typed would be a
 * binding no one checks. A grant with a {@code ModelIn} caveat therefore never admits it (§2).
 *
 * <p><b>Determinism.</b> Only when configured with {@link Builder#deterministic(boolean)} does the
 * engine claim its replies are a function of the request and payload (§5); it then asks the
 * upstream for {@code temperature 0} and a fixed {@code seed}, and the operator vouches for the
 * rest. The default is not to claim it.
 *
 * <p><b>Closing.</b> {@link #close} releases the engine's idle upstream connections and, for an
 * upstream given its own CAs, its share of the HTTP client trusting them, which stops with the last
 * engine that shares it. An embedder that rebuilds its engines (to read a new CA file, say) closes
 * the ones it drops.
 *
 * <p>Thread-safe.
 */
public final class UpstreamEngine extends DescribedEngine implements AutoCloseable {
  /**
   * The cost profile a builder starts from, 1000 µJ a token and nothing per scored option: the one
   * value {@code mesh serve} and the Spring starter give an upstream entry that names no cost.
   * Immutable.
   */
  public static final CostProfile DEFAULT_COST_PROFILE = CostProfile.perToken(1_000);

  /** Requests in flight to one upstream unless configured otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_SERVES = 64;

  private static final Logger LOG = LoggerFactory.getLogger(UpstreamEngine.class);

  /** The least time between two log lines about one upstream's failed exchanges. */
  static final Duration FAILURE_LOG_INTERVAL = Duration.ofMinutes(1);

  /**
   * Reads an upstream's replies strictly: a key given twice (a tree keeps the last, a streaming
   * reader may take the first) or JSON text after the reply's value is two readings of one reply,
   * not a reply, so either fails as not JSON, whole or streamed.
   */
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private static final long U32_MAX = 0xFFFF_FFFFL;

  private final URI chatCompletions;
  private final String model;
  private final Optional<String> apiKey;
  private final boolean deterministic;
  private final Duration timeout;
  private final int maxConcurrentServes;

  /** Whole replies from a plain {@code http} upstream; null for {@code https}. */
  private final @Nullable KeepAliveHttp plain;

  /** Holds this upstream's failure lines to one a minute, so an outage does not flood the log. */
  private final FailureLogLimit failures;

  /**
   * The hold on the client of an {@code https} upstream (and of an {@code http} one's streams): the
   * shared one, or one trusting this upstream's own CAs ({@link Builder#trustedCertificates}),
   * released by {@link #close}.
   */
  private final UpstreamHttp.Hold hold;

  /** {@code hold}'s client. */
  private final org.eclipse.jetty.client.HttpClient client;

  private final AtomicBoolean closed = new AtomicBoolean();

  private UpstreamEngine(Builder b) {
    // The recipe defaults to the model name.
    super(b.descriptor(Recipe.of(b.model.replace('+', '_'))));
    String base = b.baseUri.toString();
    this.chatCompletions =
        URI.create((base.endsWith("/") ? base : base + "/") + "chat/completions");
    this.model = b.model;
    this.apiKey = Optional.ofNullable(b.apiKey);
    this.deterministic = b.deterministic;
    this.timeout = b.timeout;
    this.maxConcurrentServes = b.maxConcurrentServes;
    this.plain =
        KeepAliveHttp.serves(chatCompletions) ? new KeepAliveHttp(chatCompletions, apiKey) : null;
    this.failures = new FailureLogLimit(FAILURE_LOG_INTERVAL, b.failureClock);
    // Last, so that nothing after it can throw and leave the hold open.
    this.hold = UpstreamHttp.hold(b.trustedCas);
    this.client = hold.client();
  }

  /** Starts a builder. Name, base URI and model are required. */
  public static Builder builder() {
    return new Builder();
  }

  /** This engine's tokenizer: byte tokens in, one code point per token out. */
  @Override
  public Tokenizer tokenizer() {
    return CodePoints.INSTANCE;
  }

  /** {@link TokenAccounting#REMOTE_USAGE}: counts come from the upstream's {@code usage}. */
  @Override
  public TokenAccounting tokenAccounting() {
    return TokenAccounting.REMOTE_USAGE;
  }

  @Override
  public boolean deterministic() {
    return deterministic;
  }

  /**
   * None: the steward cannot check what the upstream runs, so it binds nothing by content (§3.6)
   * and a {@code ModelIn} grant never admits this backend.
   */
  @Override
  public Optional<WeightsBinding> weights() {
    return Optional.empty();
  }

  /** None: the upstream's work is not on this host, so no counter here covers it. */
  @Override
  public Set<EnergyDomain> domains() {
    return Set.of();
  }

  /** What the upstream accepts in flight at once, not this host's core count (see the builder). */
  @Override
  public int maxConcurrentServes() {
    return maxConcurrentServes;
  }

  /**
   * None wait: beyond {@link #maxConcurrentServes()} in flight the steward refuses at once (429).
   */
  @Override
  public int maxWaitingServes() {
    return 0;
  }

  /** The chat completions URI requests are forwarded to. */
  public URI endpoint() {
    return chatCompletions;
  }

  /**
   * Releases what this engine holds for its upstream: its idle keep-alive connections, and the HTTP
   * client that trusts its own CAs ({@link Builder#trustedCertificates}), which is stopped once
   * every engine given the same certificates is closed (the client of the upstreams that trust the
   * JVM's store lives for the process). Close an engine once nothing serves through it (after the
   * steward that routes to it is closed): an exchange still running on a client this stops fails,
   * and a serve begun after the close fails at once. Closing again does nothing more. Thread-safe,
   * also against an engine built with the same certificates meanwhile, which gets a client that
   * works.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (plain != null) {
        plain.close();
      }
    } finally {
      hold.close();
    }
  }

  /** The HTTP client this engine streams (and posts to {@code https}) with; for tests. */
  org.eclipse.jetty.client.HttpClient client() {
    return client;
  }

  /** Refuses a serve on a closed engine before anything is sent. */
  private void requireOpen() throws EngineException {
    if (closed.get()) {
      throw EngineException.toClient("the upstream engine is closed");
    }
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    requireOpen();
    UpstreamHttp.Answer response;
    try {
      byte[] body = body(request, prompt, false);
      response =
          plain != null
              ? plain.post(body, timeout)
              : UpstreamHttp.post(client, chatCompletions, body, apiKey, timeout);
    } catch (IOException e) {
      throw failed(e);
    } catch (InterruptedException e) {
      throw interrupted(e);
    }
    if (response.status() != 200) {
      throw refused(response.status(), new String(response.body(), StandardCharsets.UTF_8));
    }
    PlainReply.Fields plain = PlainReply.read(JSON.getFactory(), response.body());
    if (plain != null) {
      // The common reply, read without a tree; anything else is read below, as the rule.
      requireWithin(plain.completionTokens(), request);
      return result(plain.content(), plain.promptTokens(), plain.completionTokens());
    }
    String text;
    Usage usage;
    try {
      JsonNode reply = JSON.readTree(response.body());
      requireNoError(reply, "reply");
      requireOneChoice(reply.path("choices"), "reply");
      requirePassedOn(reply.path("choices").path(0), "reply");
      JsonNode message = reply.path("choices").path(0).path("message");
      requireText(message, "message");
      JsonNode content = message.path("content");
      if (!content.isTextual()) {
        throw replyFault("the upstream sent no choices[0].message.content", null);
      }
      text = content.asText();
      usage =
          usage(reply, request)
              .orElseThrow(
                  () ->
                      replyFault(
                          "the upstream sent no usage report; a serve is counted in the upstream's"
                              + " tokens, never in characters",
                          null));
    } catch (IOException e) {
      throw replyFault("the upstream sent a body that is not JSON", e);
    }
    return result(text, usage.promptTokens(), usage.completionTokens());
  }

  /** A whole reply's result: its text as code points, counted as the upstream counted it. */
  private EngineResult result(String text, long promptTokens, long completionTokens)
      throws EngineException {
    requireCounted(completionTokens, !text.isEmpty());
    return served(
        new EngineResult(
            TokenSequence.of(text.codePoints().toArray()),
            ServeOutcome.greedy(promptTokens, completionTokens),
            TokenAccounting.REMOTE_USAGE));
  }

  /** True: the upstream is asked to stream, and its pieces are handed over as they arrive. */
  @Override
  public boolean streams() {
    return true;
  }

  /**
   * Asks the upstream for server-sent events and hands the code points of each content delta to
   * {@code sink} as one run ({@link TokenSink#acceptRun}) as it arrives, until the upstream ends
   * its stream (it stops at {@code max_tokens} of its own tokens) and reports its usage. A delta is
   * the upstream's unit of streamed text, so it stays one: a client of this host sees the pieces a
   * client of the upstream would. When the sink asks to stop, after a delta, the upstream
   * connection is closed, which cancels the upstream's work as far as it honours a disconnect; the
   * usage report then never comes, and the serve is counted by the declared fallback {@link
   * TokenAccounting#REMOTE_STREAM_DELTAS}. Each non-empty delta, of content or of a reasoning
   * model's thinking, is taken to hold at least one of the upstream's tokens, so a stream of more
   * deltas than {@code max_tokens} is over the request and fails the serve (which also bounds what
   * is held, and how long thinking that sends nothing to the client may go on). The reply is read
   * within bounds too: a line of at most {@link #MAX_EVENT_LINE_BYTES}, and at most {@link
   * #streamBound} bytes in all; past either the serve fails, and the upstream connection is closed.
   */
  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
      throws EngineException {
    UpstreamHttp.Streamed response;
    requireOpen();
    try {
      response =
          UpstreamHttp.stream(
              client, chatCompletions, body(request, prompt, true), apiKey, timeout);
    } catch (IOException e) {
      throw failed(e);
    } catch (InterruptedException e) {
      throw interrupted(e);
    }
    DeltaCodePoints reply = new DeltaCodePoints();
    ServerSentEvents events = null;
    long deltas = 0;
    // Content and reasoning deltas: each holds at least one of the upstream's tokens, and its
    // max_tokens bounds its thinking with its answer.
    long generated = 0;
    boolean stopped = false;
    Optional<Usage> usage = Optional.empty();
    // Closing the body aborts the exchange if it is still running.
    try (java.io.InputStream body = response.body()) {
      EventLines lines = new EventLines(body, MAX_EVENT_LINE_BYTES, streamBound(request));
      if (response.status() != 200) {
        StringBuilder said = new StringBuilder();
        String line;
        try {
          for (int i = 0; i < 20 && (line = lines.next()) != null; i++) {
            said.append(i == 0 ? "" : " ").append(line);
          }
        } catch (EventLines.NotUtf8 e) {
          // A refusal whatever its words: what came before them goes to the log.
          said.append(" (then bytes that are not UTF-8)");
        }
        throw refused(response.status(), said.toString());
      }
      events = new ServerSentEvents(lines, MAX_EVENT_LINE_BYTES);
      String data;
      while (!stopped && (data = events.next()) != null) {
        // The end as the Python SDK and the Node SDK through v6 read it: data that starts with
        // [DONE], whatever follows (Node's v7 asks for [DONE] alone, failing the rest as not JSON).
        if (data.startsWith("[DONE]")) {
          break;
        }
        if (events.errorEvent()) {
          // An event the upstream names error is its account of a failure, whatever its data
          // holds (the Node SDK raises on the name; its data need not carry an error key).
          throw upstreamError("stream", data);
        }
        JsonNode chunk = JSON.readTree(data);
        if (chunk.isMissingNode()) {
          // An event whose data holds no JSON value, which the parser takes as no value rather
          // than failing: empty (a bare "data:", or a named event such as "event: ping" with none)
          // or JSON whitespace alone ("data:  ", two bare data lines). Every official SDK
          // dispatches it and fails to parse it, so a client of the upstream could not read this
          // stream either.
          throw replyFault(
              "the upstream sent a stream event that is not JSON: its data is "
                  + (data.isEmpty() ? "empty" : "whitespace alone"),
              null);
        }
        if (!chunk.isObject()) {
          // A chunk is an object: null, a number, a string or an array carries no choice, so
          // skipped it could drop text an upstream meant to send (both SDKs hand it to the caller
          // as if it were a chunk, whose code then fails on it).
          throw replyFault(
              "the upstream sent a stream event that is no JSON object: " + kind(chunk), null);
        }
        requireNoError(chunk, "stream");
        requireOneChoice(chunk.path("choices"), "stream");
        requirePassedOn(chunk.path("choices").path(0), "stream");
        Optional<Usage> reported = usage(chunk, request);
        if (reported.isPresent()) {
          usage = reported;
        }
        JsonNode delta = chunk.path("choices").path(0).path("delta");
        JsonNode content = delta.path("content");
        requireText(delta, "delta");
        if (!content.isTextual() || content.asText().isEmpty()) {
          if (reasons(delta)) {
            // A reasoning model's thinking is generated text too, only not served: a model that
            // thinks longer than the timeout before its first content is working, not stalled.
            // It counts against max_tokens as an answer's deltas do, so an upstream thinking
            // without end (while no content goes to a client that may have left) stops there.
            if (++generated > request.maxTokens()) {
              throw replyFault(
                  "the upstream streamed more deltas than the request's max_tokens "
                      + request.maxTokens()
                      + ", its reasoning counted with its content",
                  null);
            }
            response.deadline().content();
          }
          continue;
        }
        ++deltas;
        if (++generated > request.maxTokens()) {
          throw replyFault(
              "the upstream streamed more "
                  + (generated > deltas ? "deltas" : "content deltas")
                  + " than the request's max_tokens "
                  + request.maxTokens()
                  + (generated > deltas ? ", its reasoning counted with its content" : ""),
              null);
        }
        response.deadline().content();
        // The delta's code points go to the sink as one run, so a client sees the upstream's
        // delta as one piece, not one event per character (a half surrogate pair ending it waits
        // for the next delta).
        TokenSequence run = reply.add(content.asText());
        if (run.size() > 0) {
          stopped = !sink.acceptRun(run);
        }
      }
    } catch (JsonProcessingException e) {
      // The parser's own message, without its location or class: the client reads this text.
      throw replyFault(
          "the upstream sent a stream event that is not JSON: " + e.getOriginalMessage(), e);
    } catch (EventLines.NotUtf8 e) {
      // As a whole reply holding these bytes fails: JSON is UTF-8.
      throw replyFault("the upstream sent a stream event that is not JSON: it is not UTF-8", e);
    } catch (IOException e) {
      if (e instanceof InterruptedIOException && !(e instanceof SocketTimeoutException)) {
        // This thread was interrupted (the steward's engine deadline, a shutdown): not the
        // upstream's failure, and Jetty's stream drops the interrupt and says nothing of it.
        throw interrupted(e);
      }
      @Nullable String clients = streamFailure(e, response.deadline());
      if (clients != null) {
        throw replyFault("the upstream's stream failed: " + clients, e);
      }
      // In the JVM's or a library's words, which may name the upstream's host and port: the
      // operator's alone, as a failed exchange's are (failed); the steward gives the client a
      // reference (SPEC.md 60.10).
      String words = "the upstream's stream failed: " + innermost(e).getMessage();
      logReplyFault(words);
      throw new EngineException(words, e);
    }
    TokenSequence rest = reply.finish();
    if (!stopped && rest.size() > 0) {
      sink.acceptRun(rest);
    }
    TokenSequence tokens = reply.all();
    if (usage.isPresent()) {
      requireCounted(usage.get().completionTokens(), tokens.size() > 0);
      return served(
          new EngineResult(
              tokens,
              ServeOutcome.greedy(usage.get().promptTokens(), usage.get().completionTokens()),
              TokenAccounting.REMOTE_USAGE));
    }
    if (!stopped) {
      String error = Objects.requireNonNull(events).errorField();
      if (error != null) {
        throw upstreamError("stream", error);
      }
      throw replyFault(withoutUsage(events, response.contentType()), null);
    }
    return served(
        new EngineResult(
            tokens,
            // Its thinking too: the upstream generated it, its usage report (REMOTE_USAGE) would
            // count it, and max_tokens bounds it with the answer.
            ServeOutcome.greedy(prompt.size(), generated),
            TokenAccounting.REMOTE_STREAM_DELTAS));
  }

  /** The kind of a JSON value that is not an object, as a client reads it in a message. */
  private static String kind(JsonNode value) {
    return switch (value.getNodeType()) {
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "not an object";
    };
  }

  /**
   * Why a stream that ended without a usage report has none, in words the client may read: an
   * upstream that sent no events at all answered with something else (a whole JSON reply, most
   * likely, which the stream's reader skips line by line as no event's), or its last event was cut
   * before the blank line that ends it; otherwise it ignored {@code stream_options}.
   */
  private static String withoutUsage(ServerSentEvents events, String contentType) {
    if (events.events() == 0 && !events.endedInsideAnEvent()) {
      String type = contentType.strip();
      return type.regionMatches(true, 0, "text/event-stream", 0, 17)
          ? "the upstream sent no events in its stream"
          : "the upstream answered a stream request with "
              + (type.isEmpty()
                  ? "no Content-Type"
                  : type.matches("[A-Za-z0-9._+/=; -]{1,64}")
                      ? "Content-Type " + type
                      : "a Content-Type other than text/event-stream")
              + ", not server-sent events (text/event-stream)";
    }
    if (events.endedInsideAnEvent()) {
      return "the upstream ended its stream inside an event (no blank line after its last data),"
          + " with no usage report before it";
    }
    return "the upstream ended its stream without a usage report (stream_options.include_usage); a"
        + " serve is counted in the upstream's tokens, never in characters";
  }

  /** The longest line of a streamed reply read; one event is a few hundred bytes. */
  static final int MAX_EVENT_LINE_BYTES = 1 << 20;

  /** What a streamed reply may take per token of {@code max_tokens}, beyond a whole reply's cap. */
  static final int STREAM_BYTES_PER_TOKEN = 1024;

  /**
   * The most bytes read of a streamed reply to {@code request}: a whole reply's cap plus a generous
   * event per token it may stream (an event of one token is about 200 bytes), so that the bound
   * grows with what was asked for and an endless stream still ends.
   */
  static long streamBound(ServeRequest request) {
    long perTokens =
        request.maxTokens() > Long.MAX_VALUE / STREAM_BYTES_PER_TOKEN
            ? Long.MAX_VALUE
            : request.maxTokens() * STREAM_BYTES_PER_TOKEN;
    return perTokens > Long.MAX_VALUE - UpstreamHttp.MAX_REPLY_BYTES
        ? Long.MAX_VALUE
        : perTokens + UpstreamHttp.MAX_REPLY_BYTES;
  }

  /** The chat completions body forwarded for {@code request}. */
  private byte[] body(ServeRequest request, TokenSequence prompt, boolean stream)
      throws EngineException {
    if (request.isDecision()) {
      throw EngineException.toClient("an upstream serves generations, not typed decisions");
    }
    Prompt messages;
    try {
      messages = Prompt.parse(bytesOf(prompt));
    } catch (IllegalArgumentException e) {
      throw new EngineException(
          "the upstream was handed a payload that is not prompt text: " + e.getMessage(), e);
    }
    // Written straight to bytes with a generator, not through an ObjectNode tree: this runs on
    // every proxied serve.
    try (var out = new com.fasterxml.jackson.core.util.ByteArrayBuilder(256);
        JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("model", model);
      g.writeArrayFieldStart("messages");
      for (Prompt.Message m : messages.messages()) {
        g.writeStartObject();
        g.writeStringField("role", m.role());
        g.writeStringField("content", m.content());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeNumberField("max_tokens", request.maxTokens());
      g.writeBooleanField("stream", stream);
      if (stream) {
        g.writeObjectFieldStart("stream_options");
        g.writeBooleanField("include_usage", true);
        g.writeEndObject();
      }
      if (deterministic) {
        g.writeNumberField("temperature", 0);
        g.writeNumberField("seed", 0);
      }
      g.writeEndObject();
      g.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new EngineException("the upstream request did not render: " + e, e);
    }
  }

  /**
   * A failed exchange, in words the client may read. The message is the 502 {@code engine_failed}
   * answer's, sent to whoever sent the request on a listener that may face the network, so it says
   * what went wrong and never where the upstream is: its address is a host on the operator's
   * network (a name that fails to resolve is that address too). The server's log has the endpoint
   * and the cause at WARN for the operator, at most one line a minute ({@link FailureLogLimit}).
   */
  private EngineException failed(IOException e) {
    // One line, not a stack trace, and at most one a minute (FailureLogLimit): during an outage
    // every request fails the same way.
    failures
        .failed(e.toString())
        .ifPresent(line -> LOG.warn("upstream {} at {} failed: {}", name(), chatCompletions, line));
    @Nullable String clients =
        switch (e) {
          case UnknownHostException unknown -> "its host name does not resolve";
          case SSLException tls -> "the TLS handshake or session failed";
          case java.net.ConnectException refused -> "the connection was refused";
          // Our HTTP client's own words for a failure, written for the client (UpstreamHttp).
          case UpstreamHttp.Worded worded -> worded.getMessage();
          // A connection that ended before the reply did (the plain-HTTP client's EOFException)
          // or a reply that is no HTTP, in the words the streamed reply's cut gets. Anything else
          // is in the JVM's or a library's words, which may name the upstream's host and port:
          // the operator's alone (the steward gives the client a reference).
          default -> UpstreamHttp.connectionWords(e);
        };
    String why =
        clients != null ? clients : e.getMessage() == null ? "the exchange failed" : e.getMessage();
    String message = "calling the upstream: " + why + " (the server's log names its endpoint)";
    return clients == null
        ? new EngineException(message, e)
        : new EngineException(message, message, e);
  }

  /**
   * A reply the upstream answered 200 but that cannot be served: a stream that broke after its
   * status came (cut, stalled, an event that is not JSON), a body that is not JSON or lacks its
   * text, a usage report missing or counting past {@code max_tokens}. {@code words} are the
   * client's failure; the operator's log says them too with the upstream's name and endpoint at
   * WARN, held to one line a minute as a failed exchange is ({@link FailureLogLimit}), since an
   * upstream that never reports usage (one that ignores {@code stream_options}) fails every serve
   * alike. Neither carries the request: the prompt is the client's, not the operator's to read.
   */
  private EngineException replyFault(String words, @Nullable Exception cause) {
    return replyFault(words, words, cause);
  }

  /** {@link #replyFault}, with {@code logged} (the client's words and more) in the log line. */
  private EngineException replyFault(String words, String logged, @Nullable Exception cause) {
    logReplyFault(logged);
    // Written for the client (see above): declared as its words.
    return new EngineException(words, words, cause);
  }

  /**
   * The operator's line for a reply that cannot be served, {@code logged} ({@link #replyFault}).
   */
  private void logReplyFault(String logged) {
    failures
        .failed(logged)
        .ifPresent(
            line -> LOG.warn("upstream {} at {} reply failed: {}", name(), chatCompletions, line));
  }

  /**
   * Fails a 200's reply or stream event ({@code where}) that carries an {@code error} ({@link
   * #noError} says which values are none): OpenAI and vLLM send {@code data: {"error": {...}}} when
   * a generation fails after the status went out. The error's own words are the operator's, as a
   * refusal's are ({@link #refused}).
   */
  private void requireNoError(JsonNode reply, String where) throws EngineException {
    JsonNode error = reply.get("error");
    if (error != null && !noError(error)) {
      throw upstreamError(where, error.toString());
    }
  }

  /**
   * The failure of a reply or stream ({@code where}) in which the upstream said it failed: {@code
   * said}, its own words (an error value, an error event's data, an error field), go to the
   * operator's log, bounded, as a refusal's do ({@link #refused}); the client reads only that the
   * upstream sent an error.
   */
  private EngineException upstreamError(String where, String said) {
    String words =
        "the upstream sent an error in its "
            + where
            + " (its words go to the server's log, at most a line a minute)";
    return replyFault(words, words + ": " + abbreviate(said), null);
  }

  /**
   * Fails a whole reply's {@code message} or a stream's {@code delta} ({@code where}) that carries
   * a tool call, a function call or a refusal, naming it: none is a plain answer, and this server
   * passes on text alone (no request here offers tools), so served it would be dropped, the text
   * beside it (if any) passed on as the whole answer, whether the choice ends in its own finish
   * reason or in {@code stop} (as Ollama's tool calls did). Null, an empty list or object and an
   * empty string are none: servers send {@code "tool_calls": []} or {@code "refusal": null} with
   * every piece of text.
   */
  private void requireText(JsonNode message, String where) throws EngineException {
    for (String other : NO_PLAIN_ANSWER_FIELDS) {
      JsonNode v = message.path(other);
      if (!v.isMissingNode()
          && !v.isNull()
          && !(v.isContainerNode() && v.isEmpty())
          && !(v.isTextual() && v.textValue().isEmpty())) {
        throw replyFault(
            "the upstream sent choices[0]."
                + where
                + "."
                + other
                + ", which this server does not pass on (its replies are text)",
            null);
      }
    }
  }

  /** The fields of a message or delta that carry something other than its text. */
  static final List<String> NO_PLAIN_ANSWER_FIELDS =
      List.of("tool_calls", "function_call", "refusal");

  /**
   * Fails a reply or stream event ({@code where}) whose {@code choices} is not the one choice asked
   * for: the request asks for one ({@code n} is not forwarded), and a whole reply is read at {@code
   * choices[0]} by position, so a second choice, or one whose {@code index} is not 0, would be
   * merged into the text of a stream or dropped from a whole reply. An index left out is taken as
   * 0, the one choice there is.
   */
  private void requireOneChoice(JsonNode choices, String where) throws EngineException {
    // Only an array holds choices: size() of an object (a shape no upstream sends) counts its keys.
    if (choices.isArray() && choices.size() > 1) {
      throw replyFault(
          "the upstream sent "
              + choices.size()
              + " choices in its "
              + where
              + ", where one (n = 1) was asked for",
          null);
    }
    JsonNode index = choices.path(0).path("index");
    if (!index.isMissingNode()
        && !index.isNull()
        && !(index.isIntegralNumber() && index.canConvertToLong() && index.asLong() == 0)) {
      throw replyFault(
          "the upstream sent a choice whose index is not 0 in its "
              + where
              + ", where one choice (n = 1) was asked for",
          null);
    }
  }

  /**
   * The finish reasons of an upstream's choice that this server cannot pass on: its replies end
   * {@code stop} or {@code length}, read from the upstream's counts (SPEC 70), and each of these
   * says the text is not a plain answer (cut by a filter, a call of a tool no request here offers,
   * or a generation that failed: Mistral's {@code error}, which LiteLLM passes on), so served as
   * one it would tell the client a falsehood. Any other reason (a server's own, such as {@code
   * eos_token}) ends a plain answer and is read from the counts as before.
   */
  static final Set<String> UNSERVED_FINISH_REASONS =
      Set.of("content_filter", "tool_calls", "function_call", "error");

  /** Fails a reply or stream event ({@code where}) whose choice ends in an unserved reason. */
  private void requirePassedOn(JsonNode choice, String where) throws EngineException {
    JsonNode reason = choice.path("finish_reason");
    if (reason.isTextual() && UNSERVED_FINISH_REASONS.contains(reason.asText())) {
      throw replyFault(
          "the upstream ended its "
              + where
              + " with finish_reason "
              + reason.asText()
              + ", which this server does not pass on (its replies end stop or length)",
          null);
    }
  }

  /**
   * Whether an {@code error} value says there is none, as both official SDKs take it (a value false
   * in JavaScript and in Python): null (which Foundry Local sends in every reply and chunk), {@code
   * false}, 0 or an empty string. Any other value is an error: an object above all (the shape
   * OpenAI and vLLM send; the Node SDK fails even an empty one), a message, or {@code true}. A
   * number is read as a double, as both SDKs read it: one past a double's range ({@code 1e999}) is
   * an infinity there, an error, where asking for its decimal value threw (and the serve failed in
   * the JDK's words, "Infinite or NaN").
   */
  static boolean noError(JsonNode error) {
    return error.isNull()
        || (error.isBoolean() && !error.booleanValue())
        || (error.isNumber() && error.doubleValue() == 0)
        || (error.isTextual() && error.textValue().isEmpty());
  }

  /**
   * Whether a stream event's {@code delta} carries reasoning text (the {@code reasoning_content} or
   * {@code reasoning} field OpenAI-compatible servers of reasoning models stream before the
   * answer).
   */
  private static boolean reasons(JsonNode delta) {
    for (String field : REASONING_FIELDS) {
      JsonNode text = delta.path(field);
      if (text.isTextual() && !text.asText().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static final List<String> REASONING_FIELDS = List.of("reasoning_content", "reasoning");

  /**
   * Why reading a streamed reply failed, in words the client may read. Jetty's stream wraps its
   * failure as an {@link IOException} whose message is the cause's {@code toString()}, which would
   * name a Java class ("java.util.concurrent.TimeoutException: Idle timeout expired: 8004/8000
   * ms"): a timeout, a read's or the {@code deadline} for content, is said in the deadline's
   * {@linkplain ContentDeadline#words words}, a connection that ended or a reply that is no HTTP in
   * {@link UpstreamHttp#connectionWords}'s words (Jetty's name both addresses), a failure in our
   * own words ({@link EventLines.TooLong}, {@link UpstreamHttp.Worded}) by them, one without words
   * as the connection having ended. Null for any other: its words are the JVM's or a library's,
   * which may name the upstream's host and port, and are the operator's alone (SPEC.md 60.10).
   */
  static @Nullable String streamFailure(IOException e, ContentDeadline deadline) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException
          || c instanceof SocketTimeoutException
          || c instanceof ContentDeadline.Passed) {
        return deadline.words();
      }
    }
    String ended = UpstreamHttp.connectionWords(e);
    if (ended != null) {
      return ended;
    }
    Throwable t = innermost(e);
    if (t instanceof EventLines.TooLong || t instanceof UpstreamHttp.Worded) {
      return t.getMessage();
    }
    return t.getMessage() == null ? "the connection ended" : null;
  }

  /**
   * {@code e}, or the cause it wraps without words of its own (Jetty's stream wraps its failure as
   * an {@link IOException} whose message is the cause's {@code toString()}), followed down.
   */
  private static Throwable innermost(IOException e) {
    Throwable t = e;
    while (t.getCause() != null && Objects.equals(t.getMessage(), t.getCause().toString())) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * {@code result}, a reply the upstream served whole: the count of failures not logged may be due,
   * with a line saying the upstream answers again. Said here, not when its status 200 arrives: a
   * 200 whose reply then fails ({@link #replyFault}, such as every reply of an upstream that
   * ignores {@code stream_options}) would otherwise log "answered again" once a minute through an
   * outage that never ended, in place of the failure's WARN.
   */
  private EngineResult served(EngineResult result) {
    failures
        .answered(200)
        .ifPresent(line -> LOG.info("upstream {} at {} {}", name(), chatCompletions, line));
    return result;
  }

  private EngineException interrupted(Exception e) {
    Thread.currentThread().interrupt();
    String words = "interrupted waiting for the upstream";
    return new EngineException(words, words, e);
  }

  /**
   * A reply other than 200. What the upstream said goes to the operator's log (at most one line a
   * minute, as for a failed exchange: a client able to make the upstream refuse can do so at the
   * rate it sends), never to the client ({@link UpstreamRefusedException#shown()}).
   */
  private UpstreamRefusedException refused(int status, String body) {
    UpstreamRefusedException e = new UpstreamRefusedException(status, abbreviate(body));
    failures
        .failed(String.valueOf(e.getMessage()))
        .ifPresent(
            line -> LOG.warn("upstream {} at {} refused: {}", name(), chatCompletions, line));
    return e;
  }

  /**
   * The upstream's own counts, when {@code reply} carries a usage report ({@code "usage": null},
   * which a stream sends on every chunk but its last, is none).
   *
   * @throws EngineException if the report's counts are not u32 counts, or it counts the reply over
   *     the request's {@code max_tokens}
   */
  private Optional<Usage> usage(JsonNode reply, ServeRequest request) throws EngineException {
    JsonNode usage = reply.path("usage");
    if (!usage.isObject()) {
      return Optional.empty();
    }
    long promptTokens = count(usage, "prompt_tokens");
    long completionTokens = count(usage, "completion_tokens");
    requireWithin(completionTokens, request);
    return Optional.of(new Usage(promptTokens, completionTokens));
  }

  /** Refuses a reply the upstream counts over the request's {@code max_tokens}. */
  private void requireWithin(long completionTokens, ServeRequest request) throws EngineException {
    if (completionTokens > request.maxTokens()) {
      throw replyFault(
          "the upstream counted "
              + completionTokens
              + " completion tokens, over the request's max_tokens "
              + request.maxTokens(),
          null);
    }
  }

  /**
   * Refuses text the upstream counts as no tokens: no text is made of none, so such a report is
   * wrong, and the serve would be sealed as free whatever it delivered. (The other way is honest: a
   * reasoning model spends tokens on thoughts it does not send.)
   */
  private void requireCounted(long completionTokens, boolean text) throws EngineException {
    if (completionTokens == 0 && text) {
      throw replyFault(
          "the upstream counted 0 completion tokens for a reply with text; a serve is counted in the"
              + " upstream's tokens, never in characters",
          null);
    }
  }

  private long count(JsonNode usage, String field) throws EngineException {
    JsonNode v = usage.path(field);
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0 || v.asLong() > U32_MAX) {
      throw replyFault("the upstream sent usage." + field + " " + v + ", not a u32 count", null);
    }
    return v.asLong();
  }

  /** An upstream's usage report: its own token counts for one serve. */
  private record Usage(long promptTokens, long completionTokens) {}

  private static byte[] bytesOf(TokenSequence prompt) {
    byte[] out = new byte[prompt.size()];
    for (int i = 0; i < out.length; i++) {
      long id = prompt.get(i);
      if (id > 0xFF) {
        throw new IllegalArgumentException("token " + i + " is " + id + ", not a byte");
      }
      out[i] = (byte) id;
    }
    return out;
  }

  /**
   * What an upstream said, bounded for the operator's log: runs of ASCII white space (an indented
   * JSON body) read as one space, and every other character OperatorText refuses is a space or
   * named, the cut falling between code points and outside a name.
   */
  private static String abbreviate(String s) {
    return OperatorText.oneLine(s.replaceAll("\\s+", " "), 200);
  }

  @Override
  public String toString() {
    return "UpstreamEngine["
        + name()
        + ", "
        + chatCompletions
        + ", model "
        + model
        + ", "
        + fidelity()
        + "]";
  }

  /** Byte tokens in, one token per Unicode code point out. */
  private static final class CodePoints implements Tokenizer {
    static final CodePoints INSTANCE = new CodePoints();

    @Override
    public String name() {
      return "bytes-in/code-points-out";
    }

    @Override
    public TokenSequence encode(byte[] promptText) {
      return ByteTokenizer.INSTANCE.encode(promptText);
    }

    @Override
    public String decode(TokenSequence output) {
      StringBuilder sb = new StringBuilder(output.size());
      for (int i = 0; i < output.size(); i++) {
        sb.appendCodePoint(codePoint(output.get(i)));
      }
      return sb.toString();
    }

    /** Each token is one code point: {@link #decode}, piece by piece. */
    @Override
    public Optional<String> piece(int index, long token) {
      return Optional.of(Character.toString(codePoint(token)));
    }

    /** The code point a token stands for; U+FFFD for an id that is none. */
    private static int codePoint(long token) {
      return Character.isValidCodePoint((int) token) && token <= Character.MAX_CODE_POINT
          ? (int) token
          : 0xFFFD;
    }
  }

  /** Configures an {@link UpstreamEngine}. Not thread-safe. */
  public static final class Builder extends EngineBuilder<Builder> {
    private URI baseUri;
    private String model;
    private String apiKey;
    private boolean deterministic;
    private Duration timeout = Duration.ofSeconds(60);
    private int maxConcurrentServes = DEFAULT_MAX_CONCURRENT_SERVES;
    private InstantSource failureClock = InstantSource.system();
    private @Nullable TrustedCas trustedCas;

    @SuppressWarnings("NullAway.Init") // required parts are checked in build()
    private Builder() {
      super(null, null, Fidelity.F2, DEFAULT_COST_PROFILE);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * How many requests may be in flight to the upstream at once; one more is refused with 429. The
     * work waits on the network, not on this host's cores, so the default is {@value
     * UpstreamEngine#DEFAULT_MAX_CONCURRENT_SERVES}; set it to what the upstream accepts.
     */
    public Builder maxConcurrentServes(int v) {
      maxConcurrentServes = Setting.atLeast("maxConcurrentServes", v, 1, "must be positive: ");
      return this;
    }

    /**
     * Checks the upstream's TLS certificate against the CA certificates in {@code pemFile} (a
     * private CA's, one or more PEM {@code CERTIFICATE} blocks) in place of the JVM's trust store,
     * for this upstream alone; its host name is still checked against the certificate. The file is
     * read here, once: a later change to it is seen at the next start. An upstream not given one
     * trusts the JVM's store. Upstreams given the same certificates share one HTTP client, stopped
     * when the last engine sharing it is {@linkplain UpstreamEngine#close closed}. Only for an
     * {@code https} base URI ({@link #build} refuses it with {@code http}).
     *
     * @throws PrivateCaException if the file is missing, unreadable, not a regular file (a link to
     *     one is followed), over 4 MiB, empty or not PEM certificates
     */
    public Builder trustedCertificates(Path pemFile) {
      trustedCas = TrustedCas.read(Objects.requireNonNull(pemFile, "pemFile"));
      return this;
    }

    /** The upstream's OpenAI base URI, e.g. {@code http://127.0.0.1:8000/v1}. */
    public Builder baseUri(URI v) {
      Objects.requireNonNull(v, "baseUri");
      if (!"http".equals(v.getScheme()) && !"https".equals(v.getScheme())) {
        throw new IllegalArgumentException("the upstream base URI must be http or https: " + v);
      }
      // Neither client sends userinfo as credentials, and the path is appended to the base as
      // text, so a query or fragment would end up before "/chat/completions". Each is a place an
      // operator may put a secret, which is then written into log lines; refused without echoing
      // the URI, since the secret would be in the message.
      if (v.getRawUserInfo() != null) {
        throw new IllegalArgumentException(
            "the upstream base URI must not carry userinfo (user:password@host), which is not sent"
                + " as credentials; give a bearer token by api_key_env (UpstreamEngine.Builder"
                + ".apiKey)");
      }
      if (v.getRawQuery() != null || v.getRawFragment() != null) {
        throw new IllegalArgumentException(
            "the upstream base URI must not carry a query or fragment ('?' or '#'): it is the URI"
                + " that '/chat/completions' is appended to, such as http://127.0.0.1:8000/v1;"
                + " give a bearer token by api_key_env (UpstreamEngine.Builder.apiKey)");
      }
      baseUri = v;
      return this;
    }

    /** The model name the upstream serves. */
    public Builder model(String v) {
      model = Setting.notBlank("model", v);
      return this;
    }

    /**
     * A bearer token for the upstream, if it wants one.
     *
     * @throws IllegalArgumentException if {@code v} is empty or blank (sent as {@code Bearer },
     *     every request would be refused far from the cause) or holds a line break or another
     *     control character, which no header can carry: the plain-HTTP client writes the header as
     *     text, so a line break would end it and start another; or a character outside ASCII, which
     *     no bearer token has. The message never quotes the key.
     */
    public Builder apiKey(String v) {
      Objects.requireNonNull(v, "apiKey");
      if (v.isBlank()) {
        throw new IllegalArgumentException("apiKey is empty or blank");
      }
      String unfit = ApiKeyVariable.unfitForHeader(v);
      if (unfit != null) {
        throw new IllegalArgumentException("apiKey " + unfit);
      }
      apiKey = v;
      return this;
    }

    /** Where the limit on failure lines reads the time; a test's clock moves it on. */
    Builder failureClock(InstantSource v) {
      failureClock = Objects.requireNonNull(v, "failureClock");
      return this;
    }

    /** Claims replies are reproducible (§5); only for an upstream the operator knows to be. */
    public Builder deterministic(boolean v) {
      deterministic = v;
      return this;
    }

    /**
     * The connect and request timeout, which bounds a whole reply; a streamed reply must bring a
     * content delta within it of the request and of each delta before (an upstream trickling
     * comments or empty events fails, an honest long generation does not): positive, at most {@link
     * OpenAiServer.Builder#MAX_TIME_LIMIT} (ten years, as the server's own time limits); 60 s by
     * default.
     */
    public Builder timeout(Duration v) {
      timeout =
          OpenAiServer.Builder.atMostTenYears(
              "timeout", Setting.positive("timeout", v, "must be positive: "));
      return this;
    }

    /**
     * Builds the engine.
     *
     * @throws IllegalStateException if the name, base URI or model is missing, or trusted CA
     *     certificates were given for a base URI that is not https
     */
    public UpstreamEngine build() {
      if (!named() || baseUri == null || model == null) {
        throw new IllegalStateException("an upstream engine needs a name, a base URI and a model");
      }
      if (trustedCas != null && !"https".equals(baseUri.getScheme())) {
        throw new IllegalStateException(
            "trusted CA certificates were given for an upstream whose base URI is not https: no"
                + " certificate is checked there");
      }
      return new UpstreamEngine(this);
    }
  }
}
