package org.meshjava.openai;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.steward.Steward;

/**
 * Granted chat bodies for one steward, as a caller sends them: {@code HttpServeBenchmark}'s short
 * body with a joule ceiling and a {@code jcp_presentation} of a chain with a budget that cannot run
 * out, a fresh presentation (its own nonce) for every body. A chain of one link (the caller grants
 * the steward directly) or two (an organisation grants the caller, who delegates to the steward).
 * Also the steward these benchmarks serve on and the binding in front of it. Not thread-safe.
 */
final class GrantedBodies {
  /** The body without a presentation: what an ungranted caller sends. */
  static final String BODY =
      "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
          + "\"max_tokens\":16,\"metadata\":{\"joule_ceiling_uj\":\"1000000\"}}";

  /** Where the bodies are posted. */
  static final String PATH = "/v1/chat/completions";

  private final SigningKey caller;
  private final GrantChain chain;
  private final ServeRequest request;

  /** Issues a chain of {@code links} (1 or 2) ending at {@code steward}. */
  GrantedBodies(DidKey steward, int links) throws Exception {
    if (links != 1 && links != 2) {
      throw new IllegalArgumentException("a chain of 1 or 2 links, not " + links);
    }
    Instant now = Instant.now();
    caller = Jcp.newKey();
    Instant from = now.minusSeconds(60);
    Instant to = now.plusSeconds(86_400);
    if (links == 1) {
      chain = Jcp.issueRoot(caller, steward, Long.MAX_VALUE / 4, from, to);
    } else {
      GrantChain root =
          Jcp.issueRoot(Jcp.newKey(), Jcp.identity(caller), Long.MAX_VALUE / 4, from, to);
      chain = Jcp.delegate(caller, root, steward, Long.MAX_VALUE / 4);
    }
    request = GrantedServeRequest.derive(GrantedServeRequest.parseBody(utf8(BODY)));
  }

  /** A steward with the reference engine (16 units of work per token) and an in-memory journal. */
  static Steward steward() {
    return Steward.ephemeral()
        .backend(ReferenceEngine.builder().name("reference").workPerToken(16).build())
        .meter(new EstimatorMeter())
        .build();
  }

  /** The binding in front of {@code steward}, as {@code OpenAiServer} makes it. */
  static Endpoints endpoints(Steward steward) {
    return new Endpoints(steward, 1_000_000, 1024);
  }

  /** A fresh presentation's hex. */
  String presentationHex() throws Exception {
    return Jcp.present(caller, chain, request).toHex();
  }

  /** A granted body with a fresh presentation. */
  byte[] next() throws Exception {
    return utf8(
        BODY.substring(0, BODY.length() - 1)
            + ",\"jcp_presentation\":\""
            + presentationHex()
            + "\"}");
  }

  /**
   * Serves {@code body} through the binding and renders the reply as {@code OpenAiServer} writes
   * it.
   *
   * @throws IllegalStateException if it is not answered 200
   */
  static RenderedReply serve(Endpoints endpoints, byte[] body) {
    Reply r = endpoints.handle("POST", PATH, body);
    if (!(r instanceof Reply.Json json) || json.status() != 200) {
      throw new IllegalStateException("not served: " + r);
    }
    return RenderedReply.of(json, "bench");
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
