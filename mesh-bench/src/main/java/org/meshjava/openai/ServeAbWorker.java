package org.meshjava.openai;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ServingEngine;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/**
 * One build's serve for {@code ServeAbTiming}: a steward behind the OpenAI binding ({@code
 * Endpoints.handle} of a chat body, then {@code RenderedReply.of}, as {@code OpenAiServer} does for
 * a request once its body is read), timed on the calling thread. {@code ServeAbTiming} defines this
 * class afresh in each build's class loader, so it links to that build's classes; it uses only what
 * every build it compares has (each from {@code 094ae091} on), and {@link GrantedBodies}, defined
 * afresh beside it. Not thread-safe.
 */
public final class ServeAbWorker implements Runnable, AutoCloseable {
  private static final byte[] BODY =
      ("{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
              + "\"max_tokens\":16}")
          .getBytes(StandardCharsets.UTF_8);

  private final Steward steward;
  private final Endpoints endpoints;
  private final @Nullable GrantedBodies granted;
  private final List<byte[]> bodies = new ArrayList<>();
  private int next;
  private int replyBytes;

  private ServeAbWorker(ServingEngine engine, boolean grant) throws Exception {
    steward = Steward.ephemeral().backend(engine).meter(new EstimatorMeter()).build();
    endpoints = new Endpoints(steward, 1_000_000, 1024);
    granted = grant ? new GrantedBodies(steward.identity(), 2) : null;
  }

  /**
   * A worker for {@code scenario}: {@code proxied} (an {@code UpstreamEngine} to {@code upstream},
   * a base URI ending in {@code /v1}) or {@code reference} (the reference engine, 16 units of work
   * per token), both ungranted, or {@code granted} (the reference engine; {@link GrantedBodies}'
   * body under a two-link chain, a fresh presentation each, made by {@link #prepare}); journal in
   * memory.
   */
  public static ServeAbWorker open(String scenario, String upstream) throws Exception {
    ServingEngine engine =
        switch (scenario) {
          case "proxied" ->
              UpstreamEngine.builder()
                  .name("upstream")
                  .baseUri(URI.create(upstream))
                  .model("fake")
                  .timeout(Duration.ofSeconds(30))
                  .build();
          case "reference", "granted" ->
              ReferenceEngine.builder().name("reference").workPerToken(16).build();
          default -> throw new IllegalArgumentException("unknown scenario " + scenario);
        };
    return new ServeAbWorker(engine, scenario.equals("granted"));
  }

  /**
   * Readies the next {@code n} serves' bodies, untimed: for {@code granted}, {@code n} bodies with
   * fresh presentations (each is spent once served); nothing otherwise.
   */
  public void prepare(int n) throws Exception {
    bodies.clear();
    next = 0;
    if (granted != null) {
      for (int i = 0; i < n; i++) {
        bodies.add(granted.next());
      }
    }
  }

  /** One serve, its reply rendered to bytes; throws unless it was answered 200. */
  @Override
  public void run() {
    byte[] body = granted != null ? bodies.get(next++) : Arrays.copyOf(BODY, BODY.length);
    Reply r = endpoints.handle("POST", "/v1/chat/completions", body);
    if (!(r instanceof Reply.Json json) || json.status() != 200) {
      throw new IllegalStateException("not served: " + r);
    }
    replyBytes = RenderedReply.of(json, "bench").bytes().length;
  }

  /** The last reply's length in bytes (so the render is not dead code, and a sanity check). */
  public int replyBytes() {
    return replyBytes;
  }

  @Override
  public void close() {
    steward.close();
  }
}
