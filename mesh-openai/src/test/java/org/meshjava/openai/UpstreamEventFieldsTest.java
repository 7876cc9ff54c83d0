package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * An upstream's stream read as the event-stream format and the official SDKs read it: an event's
 * data lines joined with a line feed, a blank line ending each event, comments and the fields other
 * than data no part of it. Each stream here carries the text "abc" counted as 2 tokens of 3, unless
 * it fails.
 */
class UpstreamEventFieldsTest {
  private static final String USAGE =
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n";

  /** {@code events} streamed by an upstream, served; its text and its counts. */
  static EngineResult streamed(String... events) throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, "", events))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Events.", 8);
      return Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
    }
  }

  static String text(EngineResult r) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < r.tokens().size(); i++) {
      sb.appendCodePoint((int) r.tokens().get(i));
    }
    return sb.toString();
  }

  private static void servesAbc(String... events) throws Exception {
    EngineResult r = streamed(events);
    assertThat(text(r)).isEqualTo("abc");
    assertThat(r.outcome().tokensIn()).isEqualTo(3);
    assertThat(r.outcome().tokensOut()).isEqualTo(2);
  }

  @Test
  void anEventWrittenOverSeveralDataLines_isOneValue_asAWholeOneIs() throws Exception {
    servesAbc(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n",
        USAGE,
        "data: [DONE]\n\n");
    servesAbc(
        "data: {\"choices\":[{\"index\":0,\n",
        "data: \"delta\":{\"content\":\"ab\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":\n",
        "data:\n",
        "data: {\"content\":\"c\"}}]}\n\n",
        "data: {\"choices\":[],\n",
        "data: \"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n",
        "data: [DONE]\n\n");
  }

  @Test
  void theOtherFieldsAndComments_areNoPartOfTheData() throws Exception {
    servesAbc(
        ": keep-alive\n\n",
        "event: message\nid: 1\nretry: 10\nfoo: bar\n",
        "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n",
        ": a comment inside the event\n\n",
        "id: 2\n\n",
        "data:  {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bc\"}}]}\n\n",
        USAGE,
        "data: [DONE]\n\n");
  }

  @Test
  void lineEndsOfEveryKind_endLinesAndEvents() throws Exception {
    servesAbc(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\r",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\r\n\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"c\"}}]}\n\r\n",
        USAGE.replace("\n", "\r"),
        "data: [DONE]\r\r");
  }

  /**
   * Blank lines with no data field and no event name before them end no event, as in every SDK; nor
   * do {@code id} or {@code retry} alone (the Python SDK dispatches those, both Node SDKs do not),
   * nor an {@code event} field with an empty value.
   */
  @Test
  void emptyEvents_doneTwiceOrMissing_areRead() throws Exception {
    String abc = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n";
    servesAbc(
        "\n\n\n",
        "id: 7\n\n",
        "retry: 10\n\n",
        "event:\n\n",
        "event: ping\nevent:\n\n",
        abc,
        USAGE,
        "data: [DONE]\n\n",
        "data: [DONE]\n\n");
    servesAbc(abc, USAGE);
    servesAbc(abc, USAGE, "data: [DONE]\n\n", "data: {not json after the end}\n\n");
  }

  /**
   * Regression: an event with a name and no data ({@code event: ping}), or a data field with an
   * empty value, was skipped as no event, where the Python SDK and the Node SDK (v6 and v7) each
   * dispatch it and fail to parse its empty data as JSON, so their clients could not read such a
   * stream. It now fails the serve as an event that is not JSON.
   */
  @Test
  void anEventWithEmptyData_orANameAndNoData_isAnEventThatIsNotJson() throws Exception {
    String abc = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n";
    for (String empty :
        new String[] {
          "event: ping\n\n", "event:ping\r\n\r\n", "data:\n\n", "data\n\n", "event: ping\ndata:\n\n"
        }) {
      assertThatThrownBy(() -> streamed(abc, empty, USAGE, "data: [DONE]\n\n"))
          .as(empty)
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream sent a stream event that is not JSON: its data is empty");
    }
  }

  /**
   * Regression: an event whose data was JSON whitespace alone (a second space after the colon, a
   * tab, two bare data lines joined into a line feed) was skipped, the parser taking it as no
   * value, where the Python SDK and the Node SDK each fail to parse it as they fail empty data.
   */
  @Test
  void anEventWhoseDataIsWhitespaceAlone_isAnEventThatIsNotJson() throws Exception {
    String abc = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n";
    for (String blank : new String[] {"data:  \n\n", "data: \t\r\n\r\n", "data:\ndata:\n\n"}) {
      assertThatThrownBy(() -> streamed(abc, blank, USAGE, "data: [DONE]\n\n"))
          .as(blank)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent a stream event that is not JSON: its data is whitespace alone");
    }
  }

  /**
   * Regression: an event whose data was JSON but no object (null, a number, a string, an array) was
   * skipped as a chunk without choices, so text an upstream sent that way was dropped and the rest
   * served as the whole answer.
   */
  @Test
  void anEventWhoseDataIsNoObject_failsTheServe() throws Exception {
    String abc = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n";
    String[][] cases = {
      {"data: null\n\n", "null"},
      {"data: 1\n\n", "a number"},
      {"data: \"d\"\n\n", "a string"},
      {"data: [{\"choices\":[]}]\n\n", "an array"},
      {"data: true\n\n", "a boolean"}
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> streamed(abc, c[0], USAGE, "data: [DONE]\n\n"))
          .as(c[0])
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream sent a stream event that is no JSON object: " + c[1]);
    }
  }

  @Test
  void dataWithoutTheBlankLineEndingIt_isNoEvent_andSaidSo() throws Exception {
    String abc = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"}}]}\n\n";
    assertThatThrownBy(() -> streamed(abc, USAGE.strip()))
        .isInstanceOf(EngineException.class)
        .hasMessage(
            "the upstream ended its stream inside an event (no blank line after its last data),"
                + " with no usage report before it");
    // A last [DONE] without its blank line ends nothing that is needed.
    servesAbc(abc, USAGE, "data: [DONE]\n");
  }

  @Test
  void anEventsDataPastItsBound_fails() throws Exception {
    String line = "data: " + "x".repeat(1000) + "\n";
    int lines = UpstreamEngine.MAX_EVENT_LINE_BYTES / 1000 + 2;
    byte[] many = line.repeat(lines).getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> streamed(new String(many, StandardCharsets.UTF_8), USAGE))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining(
            "an event's data is longer than " + UpstreamEngine.MAX_EVENT_LINE_BYTES);
  }

  /** An upstream writing {@code head} then {@code body} (Content-Length) to any request. */
  private static RawUpstream raw(String type, String body) throws Exception {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 200 OK\r\n"
            + (type == null ? "" : "Content-Type: " + type + "\r\n")
            + "Content-Length: "
            + b.length
            + "\r\nConnection: close\r\n\r\n";
    return new RawUpstream(
        out -> {
          out.write(head.getBytes(StandardCharsets.US_ASCII));
          out.write(b);
        });
  }

  private static void streamFails(RawUpstream up, String message) throws Exception {
    try (up) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Events.", 8);
      assertThatThrownBy(
              () -> Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true))
          .isInstanceOf(EngineException.class)
          .hasMessage(message);
    }
  }

  @Test
  void aWholeReplyToAStreamRequest_failsSayingWhatCame() throws Exception {
    String whole =
        ScriptedUpstream.reply("abc", "stop", "{\"prompt_tokens\":3,\"completion_tokens\":2}");
    streamFails(
        raw("application/json", whole),
        "the upstream answered a stream request with Content-Type application/json, not"
            + " server-sent events (text/event-stream)");
    streamFails(
        raw("application/json; charset=utf-8", whole.replace(",", ",\n")),
        "the upstream answered a stream request with Content-Type application/json;"
            + " charset=utf-8, not server-sent events (text/event-stream)");
    streamFails(
        raw(null, whole),
        "the upstream answered a stream request with no Content-Type, not server-sent events"
            + " (text/event-stream)");
    streamFails(raw("text/event-stream", whole), "the upstream sent no events in its stream");
    streamFails(
        raw("text/event-stream", ": only a comment\n\n"),
        "the upstream sent no events in its stream");
  }

  /**
   * A line every 10 ms for three timeouts, then a whole stream: comment lines, or data lines of an
   * event whose blank line never comes, are no content, so the content deadline ends the stream at
   * the timeout, not when it ends, and the held data is bounded by the deadline too.
   */
  @Test
  void keepAliveCommentsOrAnEndlessEvent_every10ms_failAtTheTimeout() throws Exception {
    java.time.Duration timeout = java.time.Duration.ofSeconds(1);
    for (String line : new String[] {": keep-alive\n", "data: \"x\"\n", "\n"}) {
      RawUpstream.Reply trickle =
          out -> {
            out.write(UpstreamCutWordsTest.HEAD.getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 300; i++) {
              out.write(RawUpstream.chunk(line));
              out.flush();
              Thread.sleep(10);
            }
            out.write(RawUpstream.chunk("\n" + UpstreamCutWordsTest.DELTA + USAGE));
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          };
      try (RawUpstream up = new RawUpstream(trickle)) {
        UpstreamEngine engine = Fixture.remoteBuilder(up.base()).timeout(timeout).build();
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Trickle.", 8);
        assertThatThrownBy(() -> engine.serve(asked.request(), asked.payload(), r -> true))
            .as(line)
            .isInstanceOf(EngineException.class)
            .hasMessage(
                "the upstream's stream failed: it sent no content within the timeout (comment"
                    + " lines and events without text do not count)");
      }
    }
  }
}
