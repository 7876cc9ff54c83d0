package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;

/**
 * Streaming is streaming: pieces reach the client while the engine is still producing, a client
 * that goes away stops the engine, and the work it did is still metered, debited, sealed and
 * journalled. Driven with the JDK's client, a raw socket and the official OpenAI Java SDK.
 */
class StreamingTest {

  /**
   * A streaming engine that produces one token every {@code pauseMillis}, waiting after its first
   * token until the test opens {@link #gate}.
   */
  static final class Paced implements ServingEngine {
    final CountDownLatch gate = new CountDownLatch(1);
    final AtomicBoolean finished = new AtomicBoolean();
    final AtomicInteger produced = new AtomicInteger();
    final long pauseMillis;

    Paced(long pauseMillis, boolean gated) {
      this.pauseMillis = pauseMillis;
      if (!gated) {
        gate.countDown();
      }
    }

    @Override
    public String name() {
      return "paced";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("paced");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F2;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public boolean streams() {
      return true;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      return serve(request, prompt, TokenSink.DISCARD);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink) {
      List<Integer> out = new ArrayList<>();
      try {
        for (int i = 0; i < request.maxTokens(); i++) {
          int token = 10 + i % 26;
          out.add(token);
          produced.incrementAndGet();
          boolean more = sink.accept(token);
          if (i == 0 && !gate.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never opened the gate");
          }
          if (!more) {
            break;
          }
          Thread.sleep(pauseMillis);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      finished.set(true);
      int[] ids = out.stream().mapToInt(Integer::intValue).toArray();
      return new EngineResult(
          TokenSequence.of(ids), ServeOutcome.greedy(prompt.size(), ids.length));
    }
  }

  private Fixture f;

  @AfterEach
  void close() {
    if (f != null) {
      f.close();
    }
  }

  private Fixture fixture(Paced engine) {
    f = new Fixture(SigningKey.generate(), b -> b.backend(engine), s -> {});
    return f;
  }

  private static ObjectNode streamed(String prompt, int maxTokens) {
    ObjectNode body = Fixture.chat(prompt);
    body.put("max_tokens", maxTokens);
    body.put("stream", true);
    body.putObject("metadata").put("fidelity_floor", "F2");
    return body;
  }

  private HttpResponse<Stream<String>> open(String path, ObjectNode body) throws Exception {
    return f.http.send(
        HttpRequest.newBuilder(f.uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build(),
        HttpResponse.BodyHandlers.ofLines());
  }

  @Test
  void chat_firstPieceArrives_whileTheEngineIsStillProducing() throws Exception {
    Paced engine = new Paced(1, true);
    fixture(engine);
    HttpResponse<Stream<String>> r = open("/v1/chat/completions", streamed("Stream me.", 6));
    assertThat(r.statusCode()).isEqualTo(200);
    Iterator<String> lines = r.body().iterator();
    String firstContent = null;
    while (firstContent == null && lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("data: {")) {
        JsonNode delta =
            Fixture.JSON.readTree(line.substring(6)).path("choices").path(0).path("delta");
        if (delta.path("content").asText().length() > 0) {
          firstContent = delta.get("content").asText();
        }
      }
    }
    // The engine is held after its first token: the piece came while it was still producing.
    assertThat(firstContent).isEqualTo("a");
    assertThat(engine.finished).isFalse();
    assertThat(engine.produced.get()).isEqualTo(1);
    engine.gate.countDown();
    List<String> rest = new ArrayList<>();
    lines.forEachRemaining(rest::add);
    List<String> data =
        rest.stream().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
    assertThat(data.getLast()).isEqualTo("[DONE]");
    JsonNode energy = Fixture.JSON.readTree(data.get(data.size() - 2)).get("energy");
    MeshReceipt receipt = Fixture.verifiedReceipt(energy);
    assertThat(receipt.counters().tokensOut()).isEqualTo(6);
    assertThat(engine.finished).isTrue();
  }

  @Test
  void responses_firstDeltaArrives_whileTheEngineIsStillProducing() throws Exception {
    Paced engine = new Paced(1, true);
    fixture(engine);
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("input", "Stream me.").put("max_output_tokens", 5).put("stream", true);
    body.putObject("metadata").put("fidelity_floor", "F2");
    HttpResponse<Stream<String>> r = open("/v1/responses", body);
    Iterator<String> lines = r.body().iterator();
    String line = "";
    while (lines.hasNext() && !(line = lines.next()).equals("event: response.output_text.delta")) {
      // skip the opening events
    }
    JsonNode delta = Fixture.JSON.readTree(lines.next().substring(6));
    assertThat(delta.get("delta").asText()).isEqualTo("a");
    assertThat(engine.finished).isFalse();
    engine.gate.countDown();
    List<String> rest = new ArrayList<>();
    lines.forEachRemaining(rest::add);
    JsonNode done =
        Fixture.JSON.readTree(
            rest.getLast().isEmpty()
                ? rest.get(rest.size() - 2).substring(6)
                : rest.getLast().substring(6));
    assertThat(done.get("type").asText()).isEqualTo("response.incomplete");
    Fixture.verifiedReceipt(done.get("response").get("usage").get("energy"));
  }

  private static final long BUDGET_UJ = 50_000_000;

  /** A request signed on a grant, and the journal of the steward it is sent to. */
  private record Granted(GrantChain chain, ServeRequest request, Path journal) {}

  /**
   * Starts {@link #f} over {@code engine} with a journal in {@code dir}, and signs {@code body}
   * (with a 10 J ceiling) on a caller's grant of {@link #BUDGET_UJ} to its steward.
   */
  private Granted granted(Path dir, Paced engine, ObjectNode body) throws Exception {
    return granted(dir, engine, body, s -> {});
  }

  /** {@link #granted(Path, Paced, ObjectNode)} on a server {@code server} configures. */
  private Granted granted(
      Path dir, Paced engine, ObjectNode body, Consumer<OpenAiServer.Builder> server)
      throws Exception {
    Path journal = dir.resolve("steward.journal");
    f =
        new Fixture(
            SigningKey.generate(),
            b -> {
              try {
                b.backend(engine).journal(FileJournal.open(journal));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            server);
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            f.steward.identity(),
            BUDGET_UJ,
            now.minusSeconds(60),
            now.plus(Duration.ofHours(1)));
    ((ObjectNode) body.get("metadata")).put("joule_ceiling_uj", "10000000");
    ServeRequest request = GrantedServeRequest.derive(body);
    body.put("jcp_presentation", Jcp.present(caller, chain, request).toHex());
    return new Granted(chain, request, journal);
  }

  /** Waits up to 20 s for {@code condition}; the assertion after it says what did not happen. */
  private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  /**
   * Sends {@code body} to the chat endpoint on a socket with a small receive buffer, after making
   * the send buffer of the connections the server accepts small too: the server's writes then wait
   * for this client within a few pieces, where the kernel would otherwise grow the buffers to
   * megabytes first.
   */
  private Socket sendChatThroughSmallBuffers(ObjectNode body) throws Exception {
    f.server.connector().setAcceptedSendBufferSize(4096);
    byte[] json = body.toString().getBytes(StandardCharsets.UTF_8);
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", f.server.port()));
    OutputStream out = socket.getOutputStream();
    out.write(Fixture.chatPostHead(json.length));
    out.write(json);
    out.flush();
    return socket;
  }

  /** Opens a socket and sends {@code body} to the chat endpoint on it. */
  private Socket sendChat(ObjectNode body) throws Exception {
    return send("/v1/chat/completions", body);
  }

  /** Opens a socket and sends {@code body} to {@code path} on it. */
  private Socket send(String path, ObjectNode body) throws Exception {
    byte[] json = body.toString().getBytes(StandardCharsets.UTF_8);
    Socket socket = new Socket("127.0.0.1", f.server.port());
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + json.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(json);
    out.flush();
    return socket;
  }

  /**
   * Waits for the steward's one receipt, closes it, and checks its journal: the granted serve was
   * debited once, sealed once with {@code tokensOut} tokens, and the grant charged exactly the
   * sealed energy (nothing left held at a ceiling).
   */
  private void settledOnce(Granted granted, int tokensOut) throws Exception {
    GrantChain chain = granted.chain();
    awaitUntil(() -> f.steward.head().nextSequence() > 0);
    assertThat(f.steward.head().nextSequence()).as("a receipt was sealed").isEqualTo(1);
    long remaining = f.steward.spend().remainingUj(chain);
    f.close();
    f = null;

    try (FileJournal reopened = FileJournal.open(granted.journal())) {
      List<JournalEntry> entries = reopened.recovered().stream().map(JournalRecord::entry).toList();
      List<JournalEntry.Debited> debits =
          entries.stream()
              .filter(JournalEntry.Debited.class::isInstance)
              .map(JournalEntry.Debited.class::cast)
              .toList();
      List<JournalEntry.Sealed> seals =
          entries.stream()
              .filter(JournalEntry.Sealed.class::isInstance)
              .map(JournalEntry.Sealed.class::cast)
              .toList();
      assertThat(debits).as("debited once").hasSize(1);
      assertThat(seals).as("sealed once").hasSize(1);
      MeshReceipt receipt = Jcr1.open(seals.getFirst().envelope().orElseThrow()).receipt();
      assertThat(receipt.requestId()).isEqualTo(granted.request().id());
      assertThat(receipt.grantId()).contains(chain.leaf().id().contentId());
      assertThat(receipt.counters().tokensOut()).isEqualTo(tokensOut);
      assertThat(debits.getFirst().debitedUj()).isEqualTo(receipt.energy().uj()).isPositive();
      assertThat(remaining).isEqualTo(BUDGET_UJ - receipt.energy().uj());
    }
  }

  /**
   * Waits until the server has no request in flight and its pool is no busier than {@code
   * busyBefore}, its count while idle before the request: no thread is left blocked writing to, or
   * serving for, a client that went away.
   */
  private void noThreadLeftServing(int busyBefore) throws InterruptedException {
    awaitUntil(
        () -> f.server.inFlight() == 0 && f.server.threadPool().getBusyThreads() <= busyBefore);
    assertThat(f.server.inFlight()).as("requests in flight").isZero();
    assertThat(f.server.threadPool().getBusyThreads())
        .as("busy request threads, against %d before the request", busyBefore)
        .isLessThanOrEqualTo(busyBefore);
  }

  @Test
  void clientDisconnectingMidStream_stopsTheEngine_andTheWorkIsDebitedSealedAndJournalled(
      @TempDir Path dir) throws Exception {
    Paced engine = new Paced(2, false);
    int max = 20_000;
    ObjectNode body = streamed("Cut me off.", max);
    Granted granted = granted(dir, engine, body);
    hangUpAfterThreePieces(
        "/v1/chat/completions",
        body,
        granted,
        engine,
        max,
        line -> line.contains("\"content\":\"") && !line.contains("\"content\":\"\""));
  }

  /**
   * Sends {@code body} (asking for {@code max} tokens) to {@code path}, reads three lines {@code
   * piece} accepts, and hangs up; then checks what a client gone mid-stream leaves: the engine
   * stopped early, no thread left serving, and the work debited, sealed and journalled once.
   */
  private void hangUpAfterThreePieces(
      String path, ObjectNode body, Granted granted, Paced engine, int max, Predicate<String> piece)
      throws Exception {
    int busyBefore = f.server.threadPool().getBusyThreads();
    try (Socket socket = send(path, body)) {
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String line;
      int pieces = 0;
      while ((line = in.readLine()) != null && pieces < 3) {
        if (piece.test(line)) {
          pieces++;
        }
      }
      assertThat(pieces).as("pieces read before hanging up").isEqualTo(3);
    } // the client goes away mid-stream

    awaitUntil(engine.finished::get);
    assertThat(engine.finished).isTrue();
    int produced = engine.produced.get();
    assertThat(produced).as("the engine stopped early").isBetween(3, max - 1);
    noThreadLeftServing(busyBefore);
    settledOnce(granted, produced);
  }

  /**
   * The same for a granted Responses stream (its events are other lines than chat's): the engine
   * stops, the grant is debited once for what was sealed once and journalled, and no thread is left
   * blocked on the client that went away.
   */
  @Test
  void clientDisconnectingMidResponsesStream_isDebitedSealedAndJournalledOnce_noThreadLeft(
      @TempDir Path dir) throws Exception {
    Paced engine = new Paced(2, false);
    int max = 20_000;
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("input", "Cut me off.").put("max_output_tokens", max).put("stream", true);
    body.putObject("metadata").put("fidelity_floor", "F2");
    Granted granted = granted(dir, engine, body);
    hangUpAfterThreePieces(
        "/v1/responses", body, granted, engine, max, "event: response.output_text.delta"::equals);
  }

  /**
   * Regression: a streaming client that reads a little before each write timeout runs out held its
   * serve (and its backend's slot) for up to {@code max_tokens} write timeouts. The waits of one
   * reply's writes are summed; past the delivery timeout the connection is closed while the client
   * is still reading, the engine stops, and the serve is settled as for a client that hung up:
   * debited, sealed and journalled once for the tokens made, no thread left serving. This reader
   * empties its small receive buffer every 100 ms, so each write waits about that long, far within
   * the 20 s write timeout and the 300 ms delivery timeout alike: only the sum can end the serve,
   * about half a second after the buffers fill.
   */
  @Test
  void aReaderEmptyingItsBufferNowAndThen_isCutOnceItsWritesWaitedTheDeliveryTimeoutInAll(
      @TempDir Path dir) throws Exception {
    Paced engine = new Paced(0, false);
    int max = 20_000;
    ObjectNode body = streamed("Trickle me.", max);
    Granted granted =
        granted(
            dir,
            engine,
            body,
            s -> s.writeTimeout(Duration.ofSeconds(20)).deliveryTimeout(Duration.ofMillis(300)));
    int busyBefore = f.server.threadPool().getBusyThreads();
    try (Socket slow = sendChatThroughSmallBuffers(body)) {
      InputStream in = slow.getInputStream();
      byte[] buffer = new byte[4096];
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      boolean closed = false;
      while (!closed && !engine.finished.get() && System.nanoTime() < giveUp) {
        try {
          closed = in.read(buffer) < 0;
        } catch (SocketException reset) {
          closed = true;
        }
        Thread.sleep(100);
      }
      if (closed) {
        awaitUntil(engine.finished::get); // the server closed first; the engine hears it next
      }
      assertThat(engine.finished)
          .as("the engine stopped while its client was still reading")
          .isTrue();
    }
    int produced = engine.produced.get();
    assertThat(produced).as("the engine stopped early").isBetween(1, max - 1);
    noThreadLeftServing(busyBefore);
    settledOnce(granted, produced);
  }

  /**
   * Regression: a whole (not streamed) reply had no delivery bound. It is written without holding a
   * thread, but a client that reads none of it kept its connection and the reply's bytes until the
   * idle timeout, and one that takes a little before each idle timeout for longer still. Its write
   * now waits the delivery timeout at most, as a stream's do in all: here 300 ms against a 30 s
   * idle timeout, and the connection is closed while the client has still read nothing.
   */
  @Test
  void aWholeReplyItsClientNeverReads_isCutAtTheDeliveryTimeout_notHeldForTheIdleTimeout(
      @TempDir Path dir) throws Exception {
    Paced engine = new Paced(0, false);
    int max = 20_000;
    ObjectNode body = streamed("Never read me.", max);
    body.put("stream", false);
    Granted granted =
        granted(
            dir,
            engine,
            body,
            s ->
                s.idleTimeout(Duration.ofSeconds(30))
                    .writeTimeout(Duration.ofSeconds(20))
                    .deliveryTimeout(Duration.ofMillis(300)));
    try (Socket never = sendChatThroughSmallBuffers(body)) {
      awaitUntil(engine.finished::get);
      awaitUntil(() -> f.server.connector().getConnectedEndPoints().isEmpty());
      assertThat(f.server.connector().getConnectedEndPoints())
          .as("connections still open, their client having read nothing of its reply")
          .isEmpty();
      never.setSoTimeout(5_000);
      InputStream in = never.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      try {
        for (int n; (n = in.read(buffer)) > 0; ) {
          got.write(buffer, 0, n);
        }
      } catch (SocketException reset) {
        // closed with the reply unsent: what was already in the buffers may come first, or not
      }
      String reply = got.toString(StandardCharsets.ISO_8859_1);
      int end = reply.indexOf("\r\n\r\n");
      if (end >= 0) {
        String head = reply.substring(0, end).toLowerCase(Locale.ROOT);
        int at = head.indexOf("content-length: ") + "content-length: ".length();
        long length = Long.parseLong(head.substring(at).split("\r\n")[0].trim());
        assertThat(reply.length() - end - 4L)
            .as("bytes of the reply's body that reached the client, of its %d", length)
            .isLessThan(length);
      }
    }
    settledOnce(granted, max);
  }

  /**
   * A client that hangs up while its whole (not streamed) reply is being made has no stream whose
   * send could fail: the serve runs to its end and is debited, sealed and journalled once, the
   * grant charged what was sealed (SPEC 60.1.2), though no one is left to read the answer.
   */
  @Test
  void clientDisconnectingMidNonStream_theServeRunsToItsEnd_andIsSettledOnce(@TempDir Path dir)
      throws Exception {
    Paced engine = new Paced(0, true);
    int max = 40;
    ObjectNode body = streamed("Hang up on me.", max);
    body.put("stream", false);
    Granted granted = granted(dir, engine, body);

    try (Socket socket = sendChat(body)) {
      awaitUntil(() -> engine.produced.get() > 0);
      assertThat(engine.produced.get()).as("the engine started").isPositive();
    } // the client goes away while the engine is held after its first token
    engine.gate.countDown();
    settledOnce(granted, max);
    assertThat(engine.produced.get()).as("the engine ran to its end").isEqualTo(max);
  }

  @Test
  void officialOpenAiSdk_streamsPiecesAndTheReceiptRidesInTheLastChunksUsage() throws Exception {
    Paced engine = new Paced(1, true);
    fixture(engine);
    OpenAIClient client =
        OpenAIOkHttpClient.builder()
            .baseUrl(f.server.baseUri().toString())
            .apiKey("unused")
            .build();
    ChatCompletionCreateParams params =
        ChatCompletionCreateParams.builder()
            .model("auto")
            .addUserMessage("Stream me with the SDK.")
            .maxCompletionTokens(4)
            .streamOptions(
                com.openai.models.chat.completions.ChatCompletionStreamOptions.builder()
                    .includeUsage(true)
                    .build())
            .putAdditionalBodyProperty("metadata", JsonValue.from(Map.of("fidelity_floor", "F2")))
            .build();
    StringBuilder text = new StringBuilder();
    Optional<JsonValue> energy = Optional.empty();
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(params)) {
      Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
      boolean sawFirst = false;
      while (chunks.hasNext()) {
        ChatCompletionChunk chunk = chunks.next();
        for (ChatCompletionChunk.Choice c : chunk.choices()) {
          String piece = c.delta().content().orElse("");
          if (!piece.isEmpty() && !sawFirst) {
            sawFirst = true;
            assertThat(engine.finished).as("first piece while producing").isFalse();
            engine.gate.countDown();
          }
          text.append(piece);
        }
        if (chunk.usage().isPresent()) {
          energy = Optional.ofNullable(chunk.usage().get()._additionalProperties().get("energy"));
        }
      }
    } finally {
      client.close();
    }
    assertThat(text.toString()).isEqualTo("a b c d");
    JsonNode usageEnergy = Fixture.JSON.valueToTree(energy.orElseThrow().convert(Object.class));
    MeshReceipt receipt = Fixture.verifiedReceipt(usageEnergy);
    assertThat(receipt.counters().tokensOut()).isEqualTo(4);
  }
}
