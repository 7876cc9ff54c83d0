import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.openai.GrantedServeRequest;

/**
 * A mixed, paced workload against one `mesh serve`, for soak runs (see README.md beside it). Not a
 * benchmark: it keeps every kind of request and misbehaving client going at a modest rate, so that
 * anything the server keeps per request, per connection or per grant shows as growth over time.
 *
 * <p>Usage: java -cp 'mesh-cli/target/lib/*' SoakClient.java PORT SECONDS RATE [granted|fresh]
 */
public final class SoakClient {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();
  static final AtomicReference<JsonNode> LAST_ENERGY = new AtomicReference<>();
  static final AtomicLong SEQ = new AtomicLong();
  static int port;
  static boolean granted;
  static boolean freshGrants;
  static HttpClient http;
  static SigningKey caller = Jcp.newKey();
  static DidKey steward;
  static volatile GrantChain shortGrant;
  static volatile GrantChain longGrant;

  public static void main(String[] args) throws Exception {
    port = Integer.parseInt(args[0]);
    long seconds = Long.parseLong(args[1]);
    int rate = Integer.parseInt(args[2]);
    granted = args.length > 3 && (args[3].equals("granted") || args[3].equals("fresh"));
    // "fresh": every granted serve presents a grant of its own, issued for it and expiring in a
    // minute, as a caller minting one grant per call would.
    freshGrants = args.length > 3 && args[3].equals("fresh");
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    JsonNode info = JSON.readTree(get("/v1/mesh/steward").body());
    steward = DidKey.parse(info.get("did").asText());
    if (granted) {
      longGrant = issue(Duration.ofHours(6));
      shortGrant = issue(Duration.ofSeconds(20));
    }
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    int threads = 8;
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t =
          Thread.ofPlatform()
              .start(
                  () -> {
                    long period = 1_000_000_000L * threads / rate;
                    long next = System.nanoTime();
                    while (System.nanoTime() < end) {
                      try {
                        one();
                      } catch (Exception e) {
                        count("client-error:" + e.getClass().getSimpleName());
                      }
                      next += period;
                      long wait = next - System.nanoTime();
                      if (wait > 0) {
                        sleepNanos(wait);
                      } else {
                        next = System.nanoTime();
                      }
                    }
                  });
      ts.add(t);
    }
    // Short-lived grants are issued anew every 20 s and live 20 s, so grants keep expiring during
    // the run, each presented up to its expiry (and a few presentations just after: 403 expired).
    ScheduledExecutorService every = Executors.newSingleThreadScheduledExecutor();
    if (granted) {
      every.scheduleAtFixedRate(SoakClient::reissue, 20, 20, TimeUnit.SECONDS);
    }
    every.scheduleAtFixedRate(
        () -> System.out.println(Instant.now() + " " + new TreeMap<>(COUNTS)),
        30,
        30,
        TimeUnit.SECONDS);
    for (Thread t : ts) {
      t.join();
    }
    every.shutdownNow();
    System.out.println("END " + new TreeMap<>(COUNTS));
  }

  static void reissue() {
    try {
      shortGrant = issue(Duration.ofSeconds(20));
    } catch (Exception e) {
      count("reissue-error");
    }
  }

  static GrantChain issue(Duration life) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(caller, steward, 50_000_000_000L, now.minusSeconds(5), now.plus(life));
  }

  static void sleepNanos(long n) {
    try {
      Thread.sleep(Duration.ofNanos(n));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void count(String what) {
    COUNTS.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
  }

  static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String body, String type) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", type)
            .header(
                "traceparent",
                "00-"
                    + HexFormat.of().formatHex(randomBytes(16))
                    + "-"
                    + HexFormat.of().formatHex(randomBytes(8))
                    + "-01")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  static ObjectNode chat(boolean stream, int maxTokens, String ceiling) {
    ObjectNode b = JSON.createObjectNode();
    b.put("model", "auto");
    b.put("max_tokens", maxTokens);
    b.put("stream", stream);
    b.putArray("messages")
        .addObject()
        .put("role", "user")
        .put("content", "soak " + SEQ.incrementAndGet() + " say something");
    ObjectNode m = b.putObject("metadata");
    m.put("fidelity_floor", "F1");
    m.put("joule_ceiling_uj", ceiling);
    return b;
  }

  static ObjectNode responses(boolean stream) {
    ObjectNode b = JSON.createObjectNode();
    b.put("model", "auto");
    b.put("max_output_tokens", 16);
    b.put("stream", stream);
    b.put("input", "soak responses " + SEQ.incrementAndGet());
    ObjectNode m = b.putObject("metadata");
    m.put("fidelity_floor", "F1");
    m.put("joule_ceiling_uj", "200000");
    return b;
  }

  static ObjectNode decision() throws Exception {
    return (ObjectNode)
        JSON.readTree(
            """
            {"model": "auto",
             "messages": [{"role": "user", "content": "Invoice %d, EUR 1,200, same payee."}],
             "response_format": {"type": "json_schema", "json_schema": {"name": "triage", "schema": {
               "type": "object", "properties": {
                 "duplicate": {"type": "boolean", "description": "Is this invoice a duplicate?"},
                 "team": {"type": "string", "enum": ["finance", "ops", "legal"]}}}}},
             "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "500000"}}
            """
                .formatted(SEQ.incrementAndGet()));
  }

  static ObjectNode present(ObjectNode body, GrantChain chain) throws Exception {
    var request = GrantedServeRequest.derive(body);
    Presentation p = Jcp.present(caller, chain, request);
    body.put("jcp_presentation", p.toHex());
    return body;
  }

  static void sent(String what, HttpResponse<String> r) throws Exception {
    count(what + ":" + r.statusCode());
    if (r.statusCode() == 200 && r.body().startsWith("{")) {
      JsonNode e = JSON.readTree(r.body()).path("usage").path("energy");
      if (e.has("envelope_hex")) {
        LAST_ENERGY.set(e);
      }
    }
  }

  static void one() throws Exception {
    int pick = ThreadLocalRandom.current().nextInt(100);
    String json = "application/json";
    if (pick < 18) {
      sent("chat", post("/v1/chat/completions", chat(false, 16, "200000").toString(), json));
    } else if (pick < 28) {
      HttpResponse<String> r =
          post("/v1/chat/completions", chat(true, 24, "200000").toString(), json);
      count("chat-stream:" + r.statusCode());
    } else if (pick < 33) {
      sent("responses", post("/v1/responses", responses(false).toString(), json));
    } else if (pick < 36) {
      count(
          "responses-stream:"
              + post("/v1/responses", responses(true).toString(), json).statusCode());
    } else if (pick < 39) {
      sent("decision", post("/v1/chat/completions", decision().toString(), json));
    } else if (pick < 52 && granted) {
      GrantChain g =
          freshGrants
              ? issue(Duration.ofSeconds(60))
              : ThreadLocalRandom.current().nextBoolean() ? shortGrant : longGrant;
      ObjectNode body = present(chat(pick % 2 == 0, 16, "200000"), g);
      String text = body.toString();
      sent("granted", post("/v1/chat/completions", text, json));
      if (pick % 5 == 0) {
        count("granted-replay:" + post("/v1/chat/completions", text, json).statusCode());
      }
    } else if (pick < 54 && granted) {
      // A presentation signed for one body, sent with another: 401.
      ObjectNode body = present(chat(false, 16, "200000"), longGrant);
      body.put("max_tokens", 17);
      count("granted-tampered:" + post("/v1/chat/completions", body.toString(), json).statusCode());
    } else if (pick < 55 && granted) {
      // Over the grant's budget: a ceiling above 50 kJ is refused.
      ObjectNode body = present(chat(false, 16, "60000000000000"), longGrant);
      count("granted-over:" + post("/v1/chat/completions", body.toString(), json).statusCode());
    } else if (pick < 57) {
      ObjectNode body = chat(false, 16, "200000");
      body.put("jcp_presentation", HexFormat.of().formatHex(randomBytes(40)));
      count("bad-grant:" + post("/v1/chat/completions", body.toString(), json).statusCode());
    } else if (pick < 59) {
      count(
          "bad-json:"
              + post("/v1/chat/completions", "{\"model\": \"auto\", \"messa", json).statusCode());
    } else if (pick < 60) {
      count("bad-type:" + post("/v1/chat/completions", "{}", "text/plain").statusCode());
    } else if (pick < 62) {
      ObjectNode body = chat(false, 16, "200000");
      body.put("model", "no-such-model-" + SEQ.incrementAndGet());
      count("unknown-model:" + post("/v1/chat/completions", body.toString(), json).statusCode());
    } else if (pick < 64) {
      count(
          "over-ceiling:"
              + post("/v1/chat/completions", chat(false, 4000, "10").toString(), json)
                  .statusCode());
    } else if (pick < 65) {
      ObjectNode body = chat(false, 16, "200000");
      body.put("tools", "x");
      count("unsupported:" + post("/v1/chat/completions", body.toString(), json).statusCode());
    } else if (pick < 66) {
      count(
          "too-big:"
              + post("/v1/chat/completions", "{\"x\":\"" + "a".repeat(1_100_000) + "\"}", json)
                  .statusCode());
    } else if (pick < 70) {
      String[] paths = {
        "/v1/models",
        "/v1/mesh/steward",
        "/v1/mesh/checkpoint",
        "/readyz",
        "/healthz",
        "/metrics",
        "/v1/mesh/proof/inclusion?seq=" + ThreadLocalRandom.current().nextInt(1000) + "&size=1000",
        "/v1/mesh/proof/consistency?from=1&to=" + (1 + ThreadLocalRandom.current().nextInt(900)),
        "/v1/models/no-such-" + SEQ.incrementAndGet(),
        "/nowhere/" + SEQ.incrementAndGet(),
      };
      String p = paths[ThreadLocalRandom.current().nextInt(paths.length)];
      count("get:" + p.replaceAll("[?0-9].*", "") + ":" + get(p).statusCode());
    } else if (pick < 72) {
      JsonNode e = LAST_ENERGY.get();
      if (e != null) {
        ObjectNode w = JSON.createObjectNode();
        w.set("receipt", e.get("receipt"));
        w.set("envelope_hex", e.get("envelope_hex"));
        count("witness:" + post("/v1/mesh/witness", w.toString(), json).statusCode());
      }
    } else if (pick < 73) {
      count(
          "checkpoint-post:"
              + post("/v1/mesh/checkpoint", "{\"checkpoint\": \"nonsense\\n\"}", json)
                  .statusCode());
    } else if (pick < 74 && granted && ThreadLocalRandom.current().nextInt(10) == 0) {
      // A throwaway grant of our own, revoked: journals a revocation each time.
      GrantChain g = issue(Duration.ofSeconds(30));
      Revocation r = Revocation.sign(caller, g, Instant.now());
      count(
          "revoke:"
              + post("/v1/mesh/revocations", "{\"revocation\": \"" + r.toHex() + "\"}", json)
                  .statusCode());
    } else if (pick < 78) {
      rawHangUpMidBody();
    } else if (pick < 84) {
      rawHangUpMidStream();
    } else if (pick < 86) {
      rawSlowReader();
    } else if (pick < 90) {
      rawIdleKeepAlive();
    } else if (pick < 92) {
      rawHeadersStall();
    } else {
      sent("chat", post("/v1/chat/completions", chat(false, 8, "200000").toString(), json));
    }
  }

  static Socket open() throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.setSoTimeout(30_000);
    return s;
  }

  static byte[] request(String path, String body, int declaredLength) {
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
            + declaredLength
            + "\r\n\r\n";
    return (head + body).getBytes(StandardCharsets.UTF_8);
  }

  /** Sends half a body, then hangs up. */
  static void rawHangUpMidBody() throws Exception {
    String body = chat(false, 16, "200000").toString();
    try (Socket s = open()) {
      OutputStream o = s.getOutputStream();
      o.write(request("/v1/chat/completions", body.substring(0, body.length() / 2), body.length()));
      o.flush();
      sleepNanos(ThreadLocalRandom.current().nextInt(200) * 1_000_000L);
    }
    count("raw-hangup-body");
  }

  /** Starts a stream, reads a little of it, then hangs up (half the time with RST). */
  static void rawHangUpMidStream() throws Exception {
    String body =
        (granted && ThreadLocalRandom.current().nextBoolean()
                ? present(chat(true, 400, "2000000"), longGrant)
                : chat(true, 400, "2000000"))
            .toString();
    Socket s = open();
    try {
      s.getOutputStream().write(request("/v1/chat/completions", body, body.length()));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[ThreadLocalRandom.current().nextInt(64, 2048)];
      in.read(buf);
      if (ThreadLocalRandom.current().nextBoolean()) {
        s.setSoLinger(true, 0);
      }
    } finally {
      s.close();
    }
    count("raw-hangup-stream");
  }

  /** Starts a long stream and reads nothing for 12 s (past the write timeout), then hangs up. */
  static void rawSlowReader() throws Exception {
    String body = chat(true, 4000, "20000000").toString();
    Socket s = open();
    s.setReceiveBufferSize(4096);
    s.getOutputStream().write(request("/v1/chat/completions", body, body.length()));
    s.getOutputStream().flush();
    closeAfter(s, 12_000_000_000L);
    count("raw-slow-reader");
  }

  /** Closes {@code s} after {@code nanos}, without holding a thread meanwhile. */
  static void closeAfter(Socket s, long nanos) {
    Thread.ofVirtual()
        .start(
            () -> {
              sleepNanos(nanos);
              try {
                s.close();
              } catch (Exception e) {
                // already closed by the server: nothing to do
              }
            });
  }

  /** Asks for /healthz on a keep-alive connection, reads the answer, and leaves it open 5-40 s. */
  static void rawIdleKeepAlive() throws Exception {
    Socket s = open();
    s.getOutputStream()
        .write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getInputStream().read(new byte[4096]);
    long hold = ThreadLocalRandom.current().nextLong(5, 40) * 1_000_000_000L;
    closeAfter(s, hold);
    count("raw-idle");
  }

  /** Sends half the headers and stops, for longer than the header deadline. */
  static void rawHeadersStall() throws Exception {
    Socket s = open();
    s.getOutputStream()
        .write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
    closeAfter(s, 13_000_000_000L);
    count("raw-header-stall");
  }
}
