package org.meshjava.openai;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.meshjava.bench.MicrosecondBenchmark;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * A served chat body read before anything is served, two ways side by side in one JVM: {@link
 * #tree}, the binding's own read ({@code Endpoints.read}: a Jackson tree, then the stream settings,
 * the presentation, {@code GrantedServeRequest.derive}, the unserved options, the prompt text again
 * and the decision, each a walk over the tree), and {@link #streaming}, the candidate {@link
 * CommonChatBody} (one pass of Jackson's parser, the request and the prompt text derived as it
 * goes), which {@code CommonChatBodyTest} holds to the same request, prompt and settings. Both
 * decode a granted body's presentation, the same way. Read the figures as a ratio; the whole read's
 * share of a proxied request is the question (mesh-bench/README.md, session 34).
 *
 * <p>Three bodies: {@code short}, the one {@code HttpServeBenchmark} sends (76 bytes); {@code
 * granted}, the same with {@code metadata.joule_ceiling_uj} and a real one-link presentation's hex,
 * as its granted scenarios send; {@code conversation}, a system prompt and three turns, one of them
 * in content parts, with sampling settings, caller metadata and a stream with its usage chunk.
 *
 * <p>In package {@code org.meshjava.openai} (on the class path beside mesh-openai's classes)
 * because both reads are the binding's own and not API; JMH's schedule is {@link
 * MicrosecondBenchmark}'s. Run: {@code java -jar mesh-bench/target/benchmarks.jar
 * RequestReadBenchmark}.
 */
public class RequestReadBenchmark extends MicrosecondBenchmark {
  private static final long DEFAULT_CEILING = 1_000_000;

  /** Which body is read. */
  @Param({"short", "granted", "conversation"})
  public String body;

  private byte[] bytes;

  /** For JMH. */
  public RequestReadBenchmark() {}

  /** Makes the body, a real presentation included for {@code granted}. */
  @Setup
  public void setup() throws Exception {
    String shortBody =
        "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
            + "\"max_tokens\":16}";
    String text =
        switch (body) {
          case "short" -> shortBody;
          case "granted" -> granted(shortBody);
          case "conversation" -> CONVERSATION;
          default -> throw new IllegalArgumentException(body);
        };
    bytes = text.getBytes(StandardCharsets.UTF_8);
    if (CommonChatBody.read(bytes, DEFAULT_CEILING).isEmpty()) {
      throw new IllegalStateException("the streaming read declines the " + body + " body");
    }
  }

  /** The short body with a ceiling and the hex of a presentation of a root grant. */
  private static String granted(String shortBody) throws Exception {
    String withCeiling =
        shortBody.substring(0, shortBody.length() - 1)
            + ",\"metadata\":{\"joule_ceiling_uj\":\"1000000\"}}";
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            Jcp.identity(SigningKey.generate()),
            Long.MAX_VALUE / 4,
            now.minusSeconds(60),
            now.plusSeconds(86_400));
    ServeRequest request =
        GrantedServeRequest.derive(
            GrantedServeRequest.parseBody(withCeiling.getBytes(StandardCharsets.UTF_8)));
    return withCeiling.substring(0, withCeiling.length() - 1)
        + ",\"jcp_presentation\":\""
        + Jcp.present(caller, chain, request).toHex()
        + "\"}";
  }

  private static final String CONVERSATION =
      """
      {"model":"auto","stream":true,"stream_options":{"include_usage":true},\
      "temperature":0.7,"top_p":0.9,"user":"user-4711","max_completion_tokens":256,\
      "metadata":{"joule_ceiling_uj":"5000000","fidelity_floor":"F1","session":"s-0042",\
      "trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"},\
      "messages":[\
      {"role":"system","content":"You are a concise assistant. Answer in plain English, \
      in at most three sentences, and say so when you do not know."},\
      {"role":"user","content":"What does a receipt in mesh prove about a served request?"},\
      {"role":"assistant","content":"That this steward served exactly this request, with this \
      prompt hash and these bounds, and spent at most this much energy on it, signed."},\
      {"role":"user","content":[{"type":"text","text":"And what does it not prove? "},\
      {"type":"text","text":"Keep it short, please \u2014 one sentence."}]}]}""";

  /** The binding's read: what every served body goes through. */
  @Benchmark
  public Endpoints.Asked tree() throws BindingException {
    return Endpoints.read(bytes, GrantedServeRequest.Endpoint.CHAT_COMPLETIONS, DEFAULT_CEILING);
  }

  /** The streaming candidate, and the presentation decoded as the binding decodes it. */
  @Benchmark
  public Object streaming() throws MalformedGrantException {
    CommonChatBody read = CommonChatBody.read(bytes, DEFAULT_CEILING).orElseThrow();
    return read.presentationHex().isPresent()
        ? Presentation.fromHex(read.presentationHex().get())
        : read;
  }
}
