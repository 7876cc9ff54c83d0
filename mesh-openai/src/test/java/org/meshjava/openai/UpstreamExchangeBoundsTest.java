package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.TokenAccounting;

/**
 * An upstream that keeps an exchange alive without ever finishing it: a stream trickling comment
 * lines or events without text, each arriving well within a read's idle timeout, or interim ({@code
 * 1xx}) heads sent without end. Either held the serve, its backend slot and a thread: the stream
 * until its byte bound, the heads until the exchange's deadline. A stream must bring content within
 * the upstream's timeout of the request and of each content delta (an honest slow stream longer
 * than the timeout is served whole), and a few interim heads are skipped, not any number.
 */
class UpstreamExchangeBoundsTest {
  private static final String STREAM_HEAD =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

  private static final String USAGE_AND_DONE =
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n"
          + "data: [DONE]\n\n";

  /**
   * The upstream's timeout in the cases that must be served whole. Each is a ratio to it: an honest
   * stream's deltas come at a quarter of it and it lasts a quarter more than it, so a bound on the
   * whole stream fails it while each delta keeps three quarters of the timeout to spare.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /**
   * The upstream's timeout in the cases that must fail at it: a trickle's lines come at a twentieth
   * of it for four of it. Shorter than {@link #TIMEOUT}, as a case that fails at its timeout needs
   * no slack for a late delta, and the trickle still ends long after it.
   */
  private static final Duration TRICKLE_TIMEOUT = TIMEOUT.dividedBy(2);

  private static final long TRICKLE_MS = TRICKLE_TIMEOUT.toMillis() / 20;

  private static final long DELTA_MS = TIMEOUT.toMillis() / 4;

  /** Deltas of an honest stream, each {@link #DELTA_MS} after the last: 1.25 timeouts. */
  private static final int SLOW_DELTAS = 5;

  private static final String NO_CONTENT =
      "it sent no content within the timeout (comment lines and events without text do not count)";

  /**
   * A comment line every {@link #TRICKLE_MS} for four trickle timeouts, then a whole reply: a
   * stream that ends, too slowly.
   */
  private static final RawUpstream.Reply TRICKLE =
      out -> {
        out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 80; i++) {
          out.write(RawUpstream.chunk(": still here\n\n"));
          out.flush();
          Thread.sleep(TRICKLE_MS);
        }
        out.write(RawUpstream.chunk(UpstreamCutWordsTest.DELTA + USAGE_AND_DONE));
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      };

  @Test
  void aStreamTricklingComments_failsAtTheTimeout_notWhenItEnds() throws Exception {
    try (RawUpstream up = new RawUpstream(TRICKLE)) {
      UpstreamEngine engine = Fixture.remoteBuilder(up.base()).timeout(TRICKLE_TIMEOUT).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Trickle.", 8);
      String log =
          Fixture.stderrOf(
              () ->
                  assertThatThrownBy(
                          () -> engine.serve(asked.request(), asked.payload(), r -> true))
                      .isInstanceOf(EngineException.class)
                      .hasMessage("the upstream's stream failed: " + NO_CONTENT));
      assertThat(log.lines())
          .anyMatch(l -> l.contains("WARN") && l.contains("reply failed: the upstream's stream"));
    }
  }

  @Test
  void aStreamOfEventsWithoutText_failsAtTheTimeout() throws Exception {
    String empty = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n";
    RawUpstream.Reply emptyEvents =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          for (int i = 0; i < 80; i++) {
            out.write(RawUpstream.chunk(empty));
            out.flush();
            Thread.sleep(TRICKLE_MS);
          }
          out.write(RawUpstream.chunk(UpstreamCutWordsTest.DELTA + USAGE_AND_DONE));
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        };
    try (RawUpstream up = new RawUpstream(emptyEvents)) {
      UpstreamEngine engine = Fixture.remoteBuilder(up.base()).timeout(TRICKLE_TIMEOUT).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Nothing.", 8);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), r -> true))
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream's stream failed: " + NO_CONTENT);
    }
  }

  /**
   * {@link #SLOW_DELTAS} content deltas of "ab", {@code pauseMs} apart, then the usage report that
   * counts them.
   */
  private static RawUpstream.Reply slowStream(long pauseMs) {
    return out -> {
      out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < SLOW_DELTAS; i++) {
        out.write(RawUpstream.chunk(UpstreamCutWordsTest.DELTA));
        out.flush();
        Thread.sleep(pauseMs);
      }
      out.write(
          RawUpstream.chunk(
              USAGE_AND_DONE.replace(
                  "\"completion_tokens\":1", "\"completion_tokens\":" + SLOW_DELTAS)));
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    };
  }

  /**
   * {@link #SLOW_DELTAS} reasoning deltas without content, {@code pauseMs} apart, then one content
   * delta of "ab" and the usage report.
   */
  private static RawUpstream.Reply thinkingThenAnswer(long pauseMs) {
    String thought =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n";
    return out -> {
      out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < SLOW_DELTAS; i++) {
        out.write(RawUpstream.chunk(thought));
        out.flush();
        Thread.sleep(pauseMs);
      }
      out.write(RawUpstream.chunk(UpstreamCutWordsTest.DELTA));
      out.write(RawUpstream.chunk(USAGE_AND_DONE));
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    };
  }

  /** Serves {@code reply} from a fresh upstream through an engine with {@code timeout}. */
  private static EngineResult served(RawUpstream.Reply reply, Duration timeout, String prompt)
      throws Exception {
    try (RawUpstream up = new RawUpstream(reply)) {
      UpstreamEngine engine = Fixture.remoteBuilder(up.base()).timeout(timeout).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat(prompt, 20);
      return engine.serve(asked.request(), asked.payload(), r -> true);
    }
  }

  /**
   * The two streams that must be served whole within {@link #TIMEOUT} of each delta, served once
   * without pauses under the default timeout first: a JVM's first exchange loads the HTTP client's
   * and the parser's classes, which in a cold JVM on a loaded machine took longer than the whole
   * timeout between the request and its first read ("nothing arrived within the timeout"). The
   * timed cases then measure the stream, not the loading.
   */
  @BeforeAll
  static void servedOnceWithoutPauses() throws Exception {
    assertThat(served(slowStream(0), Duration.ofSeconds(30), "Quick.").tokens().size())
        .isEqualTo(2 * SLOW_DELTAS);
    assertThat(served(thinkingThenAnswer(0), Duration.ofSeconds(30), "Quick.").tokens().size())
        .isEqualTo(2);
  }

  @Test
  void anHonestSlowStream_longerThanTheTimeout_isServedWhole() throws Exception {
    EngineResult served = served(slowStream(DELTA_MS), TIMEOUT, "Take your time.");
    // Deltas of "ab" for 1.25 timeouts, each within a quarter of one of the one before.
    assertThat(served.tokens().size()).isEqualTo(2 * SLOW_DELTAS);
    assertThat(served.outcome().tokensOut()).isEqualTo(SLOW_DELTAS);
  }

  @Test
  void aReasoningModelThinkingLongerThanTheTimeout_beforeItsAnswer_isServedWhole()
      throws Exception {
    // Thinking for 1.25 timeouts, a thought every quarter of one, then the answer: longer than the
    // timeout before the first content delta, never the timeout without text.
    EngineResult served = served(thinkingThenAnswer(DELTA_MS), TIMEOUT, "Think first.");
    // Only the answer is served; the thoughts kept the stream alive.
    assertThat(served.tokens().size()).isEqualTo(2);
  }

  /**
   * A model thinking without end, fast enough for the deadline: its reasoning deltas send the
   * client nothing, so a client that left is never found out, and they were counted against
   * nothing, so the serve (its slot, its thread) ran on until the stream's byte bound, 4 MiB and
   * more. They count against max_tokens with the content's now.
   */
  @Test
  void aModelThinkingWithoutEnd_failsPastMaxTokensDeltas_notAtTheByteBound() throws Exception {
    String thought =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n";
    RawUpstream.Reply thinking =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          // Past the byte bound for 8 tokens (4 MiB and 8 KiB), unless the reader stops first.
          for (int i = 0; i < 100_000; i++) {
            out.write(RawUpstream.chunk(thought));
          }
        };
    try (RawUpstream up = new RawUpstream(thinking)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Think.", 8);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), r -> true))
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream streamed more deltas than the request's max_tokens 8, its reasoning"
                  + " counted with its content");
    }
  }

  /**
   * A reasoning model's stream the caller stops at its first content delta, before the usage
   * report: its thinking counts against max_tokens with the content, and its usage report would
   * have counted it, yet the fallback count (REMOTE_STREAM_DELTAS) took the content deltas alone,
   * so a client stopping early was charged one token for five generated.
   */
  @Test
  void aReasoningStreamStoppedByTheCaller_countsItsThinkingDeltas_withItsContent()
      throws Exception {
    String thought =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n";
    String answer = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Yes\"}}]}\n\n";
    RawUpstream.Reply thinking =
        out -> {
          out.write(STREAM_HEAD.getBytes(StandardCharsets.US_ASCII));
          out.write(RawUpstream.chunk(thought.repeat(4) + answer + answer + USAGE_AND_DONE));
          out.write(RawUpstream.chunk(""));
        };
    try (RawUpstream up = new RawUpstream(thinking)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Think.", 8);
      EngineResult stopped = engine.serve(asked.request(), asked.payload(), run -> false);
      assertThat(stopped.accounting()).isEqualTo(TokenAccounting.REMOTE_STREAM_DELTAS);
      assertThat(stopped.tokens().size()).isEqualTo("Yes".length());
      assertThat(stopped.outcome().tokensOut()).as("four thoughts and one answer").isEqualTo(5);
    }
  }

  @Test
  void aChatStreamOverATricklingUpstream_isAnsweredEngineFailed() throws Exception {
    try (RawUpstream up = new RawUpstream(TRICKLE);
        Fixture f =
            new Fixture(
                null,
                b -> b.backend(Fixture.remoteBuilder(up.base()).timeout(TRICKLE_TIMEOUT).build()),
                b -> {})) {
      ObjectNode body = Fixture.chat("Trickle.");
      body.put("model", "remote");
      body.put("stream", true);
      // No text came before the deadline, so the failure is a whole error reply, not an event.
      assertThat(
              f.post("/v1/chat/completions", body)
                  .error(502, "engine_failed")
                  .get("message")
                  .asText())
          .contains(NO_CONTENT);
    }
  }

  @Test
  void interimHeadsWithoutEnd_failTheExchange_sayingSo() throws Exception {
    RawUpstream.Reply flood =
        out -> {
          while (true) {
            out.write(
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(20);
          }
        };
    try (RawUpstream up = new RawUpstream(flood)) {
      UpstreamEngine engine =
          Fixture.remoteBuilder(up.base()).timeout(Duration.ofSeconds(5)).build();
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
      assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining(
              "the upstream sent more than "
                  + KeepAliveHttp.MAX_INTERIM_HEADS
                  + " interim (1xx) heads");
    }
  }

  @Test
  void aFewInterimHeads_areSkipped() throws Exception {
    String whole =
        ScriptedUpstream.reply("ok", "stop", "{\"prompt_tokens\":1,\"completion_tokens\":1}");
    RawUpstream.Reply hinted =
        out -> {
          for (int i = 0; i < KeepAliveHttp.MAX_INTERIM_HEADS; i++) {
            out.write("HTTP/1.1 103 Early Hints\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          }
          out.write(
              ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                      + whole.length()
                      + "\r\nConnection: close\r\n\r\n"
                      + whole)
                  .getBytes(StandardCharsets.UTF_8));
        };
    try (RawUpstream up = new RawUpstream(hinted)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Hints.", 8);
      assertThat(engine.serve(asked.request(), asked.payload()).outcome().tokensOut()).isEqualTo(1);
    }
  }
}
