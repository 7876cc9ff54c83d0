package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * The streamed replies' writers ({@link Completions.Stream}, {@link Responses.Stream}) over a
 * channel that records each server-sent event: which events go out in which order with which
 * fields, that an empty piece sends nothing, and that nothing is sent once the client is gone.
 */
class StreamWriterTest {
  private static ServeResult served;

  /** A channel that records each event's data (and name), and can fail from a given send on. */
  private static final class Recording implements Reply.Channel {
    final List<String> names = new ArrayList<>();
    final List<String> data = new ArrayList<>();
    private final int failFrom;
    int sends;

    Recording(int failFrom) {
      this.failFrom = failFrom;
    }

    @Override
    public boolean send(Reply.Event event) {
      sends++;
      if (sends >= failFrom) {
        return false;
      }
      ByteBuffer b = event.wire();
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      String wire = new String(bytes, StandardCharsets.UTF_8);
      String name = "";
      if (wire.startsWith("event: ")) {
        name = wire.substring(7, wire.indexOf('\n'));
        wire = wire.substring(wire.indexOf('\n') + 1);
      }
      names.add(name);
      data.add(wire.substring("data: ".length(), wire.length() - 2));
      return true;
    }

    @Override
    public boolean started() {
      return sends > 0;
    }

    JsonNode json(int i) throws Exception {
      return Fixture.JSON.readTree(data.get(i));
    }
  }

  @BeforeAll
  static void serveOnce() throws Exception {
    Steward s =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceEngine.builder().name("ref").build())
            .build();
    served =
        s.serve(
            ServeRequest.generation(
                ContentId.ofBytes(new byte[] {1, 2}),
                2,
                new ServeBounds(3, Fidelity.F0, 1_000_000)),
            TokenSequence.of(1, 2));
  }

  @Test
  void chatStream_opensWithTheRole_sendsEachNonEmptyPiece_andClosesWithTheEnergyAndDone()
      throws Exception {
    Recording ch = new Recording(Integer.MAX_VALUE);
    Completions.Stream s = new Completions.Stream(ch, 1234, false);
    assertThat(s.started()).isFalse();

    s.open(served.route());
    assertThat(s.started()).as("the opening waits for the first piece").isFalse();
    assertThat(s.delta("")).as("an empty piece sends nothing").isTrue();
    assertThat(s.started()).isFalse();
    assertThat(s.delta("He")).isTrue();
    assertThat(s.started()).isTrue();
    s.finish(served, "llo", "Hello", false);

    assertThat(ch.data).hasSize(5);
    JsonNode open = ch.json(0);
    String id = open.get("id").asText();
    assertThat(id).startsWith("chatcmpl-").hasSize("chatcmpl-".length() + 32);
    assertThat(open.get("object").asText()).isEqualTo("chat.completion.chunk");
    assertThat(open.get("created").asLong()).isEqualTo(1234);
    assertThat(open.get("model").asText()).isEqualTo("ref");
    assertThat(open.at("/choices/0/delta/role").asText()).isEqualTo("assistant");
    assertThat(open.at("/choices/0/delta/content").asText()).isEmpty();
    assertThat(ch.json(1).at("/choices/0/delta/content").asText()).isEqualTo("He");
    assertThat(ch.json(1).get("model").asText()).isEqualTo("ref");
    assertThat(ch.json(2).at("/choices/0/delta/content").asText()).isEqualTo("llo");
    JsonNode last = ch.json(3);
    assertThat(last.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(last.get("energy").get("envelope_id").asText())
        .isEqualTo(served.envelope().id().hex());
    assertThat(last.has("usage")).isFalse();
    assertThat(ch.data.get(4)).isEqualTo("[DONE]");
    for (int i = 0; i < 4; i++) {
      assertThat(ch.json(i).get("id").asText()).isEqualTo(id);
    }
    assertThat(ch.names).containsOnly("");

    Recording other = new Recording(Integer.MAX_VALUE);
    Completions.Stream second = new Completions.Stream(other, 1234, false);
    second.open(served.route());
    second.delta("x");
    assertThat(other.json(0).get("id").asText()).as("each stream has its own id").isNotEqualTo(id);
  }

  @Test
  void chatStream_askedForUsage_sendsItInAChoicelessChunkOfItsOwn_andACutSaysLength()
      throws Exception {
    Recording ch = new Recording(Integer.MAX_VALUE);
    Completions.Stream s = new Completions.Stream(ch, 1, true);
    s.open(served.route());
    s.finish(served, "", "", true);

    assertThat(ch.data).hasSize(4);
    JsonNode last = ch.json(1);
    assertThat(last.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(last.has("energy")).isFalse();
    JsonNode alone = ch.json(2);
    assertThat(alone.get("choices")).isEmpty();
    assertThat(alone.at("/usage/completion_tokens").asLong())
        .isEqualTo(served.outcome().tokensOut());
    assertThat(alone.at("/usage/prompt_tokens").asLong()).isEqualTo(served.outcome().tokensIn());
    assertThat(alone.at("/usage/energy/envelope_id").asText())
        .isEqualTo(served.envelope().id().hex());
    assertThat(ch.data.get(3)).isEqualTo("[DONE]");
  }

  @Test
  void aStream_whoseClientIsGone_sendsNothingMore_andSaysSo() throws Exception {
    Recording ch = new Recording(2);
    Completions.Stream s = new Completions.Stream(ch, 1, false);
    s.open(served.route());
    assertThat(s.delta("a")).as("the second send fails").isFalse();
    assertThat(s.delta("")).as("an empty piece answers the last send's outcome").isFalse();
    assertThat(s.delta("b")).isFalse();
    s.finish(served, "c", "abc", false);
    assertThat(ch.sends).as("no send is tried after one failed").isEqualTo(2);
  }

  @Test
  void aResponsesStream_whoseClientIsGone_sendsNothingMore_andSaysSo() throws Exception {
    Recording ch = new Recording(2);
    Responses.Stream s = new Responses.Stream(Fixture.JSON.createObjectNode(), ch, 1);
    s.open(served.route());
    assertThat(s.delta("")).as("the opening events are held: nothing was sent").isTrue();
    assertThat(ch.sends).isZero();
    assertThat(s.delta("b")).as("the second of the opening events failed").isFalse();
    assertThat(s.delta("c")).isFalse();
    assertThat(ch.sends).isEqualTo(2);
  }

  @Test
  void chatStream_failing_sendsTheErrorAsItsData() throws Exception {
    Recording ch = new Recording(Integer.MAX_VALUE);
    Completions.Stream s = new Completions.Stream(ch, 1, false);
    s.open(served.route());
    ObjectNode error = Fixture.JSON.createObjectNode();
    error.putObject("error").put("code", "engine_failed").put("message", "boom").putNull("param");
    s.fail(error);
    assertThat(ch.json(1)).isEqualTo(error);
  }

  @Test
  void responsesStream_sendsItsNamedEventsInOrder_numberedFromZero() throws Exception {
    Recording ch = new Recording(Integer.MAX_VALUE);
    ObjectNode request = Fixture.JSON.createObjectNode().put("instructions", "be brief");
    Responses.Stream s = new Responses.Stream(request, ch, 77);
    s.open(served.route());
    assertThat(s.delta("")).isTrue();
    assertThat(s.delta("He")).isTrue();
    s.finish(served, "llo", "Hello", false);

    assertThat(ch.names)
        .containsExactly(
            "response.created",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed");
    for (int i = 0; i < ch.data.size(); i++) {
      assertThat(ch.json(i).get("sequence_number").asInt()).isEqualTo(i);
      assertThat(ch.json(i).get("type").asText()).isEqualTo(ch.names.get(i));
    }
    JsonNode created = ch.json(0).get("response");
    assertThat(created.get("status").asText()).isEqualTo("in_progress");
    assertThat(created.get("model").asText()).isEqualTo("ref");
    assertThat(created.get("created_at").asLong()).isEqualTo(77);
    assertThat(created.get("instructions").asText()).isEqualTo("be brief");
    assertThat(created.get("id").asText()).startsWith("resp_").hasSize("resp_".length() + 32);
    String itemId = ch.json(1).at("/item/id").asText();
    assertThat(itemId).startsWith("msg_").hasSize("msg_".length() + 32);
    assertThat(ch.json(3).get("delta").asText()).isEqualTo("He");
    assertThat(ch.json(3).get("item_id").asText()).isEqualTo(itemId);
    assertThat(ch.json(4).get("delta").asText()).isEqualTo("llo");
    assertThat(ch.json(5).get("text").asText()).isEqualTo("Hello");
    assertThat(ch.json(6).at("/part/text").asText()).isEqualTo("Hello");
    assertThat(ch.json(7).at("/item/status").asText()).isEqualTo("completed");
    assertThat(ch.json(7).at("/item/content/0/text").asText()).isEqualTo("Hello");
    JsonNode done = ch.json(8).get("response");
    assertThat(done.get("status").asText()).isEqualTo("completed");
    assertThat(done.get("id").asText()).isEqualTo(created.get("id").asText());
    assertThat(done.at("/usage/energy/envelope_id").asText())
        .isEqualTo(served.envelope().id().hex());
  }

  @Test
  void responsesStream_cut_endsIncomplete_andAFailureIsOneErrorEvent() throws Exception {
    Recording ch = new Recording(Integer.MAX_VALUE);
    Responses.Stream s = new Responses.Stream(Fixture.JSON.createObjectNode(), ch, 1);
    s.open(served.route());
    s.finish(served, "", "x", true);
    assertThat(ch.names.get(ch.names.size() - 1)).isEqualTo("response.incomplete");
    assertThat(ch.json(ch.data.size() - 1).at("/response/status").asText()).isEqualTo("incomplete");

    Recording failing = new Recording(Integer.MAX_VALUE);
    Responses.Stream f = new Responses.Stream(Fixture.JSON.createObjectNode(), failing, 1);
    f.open(served.route());
    ObjectNode error = Fixture.JSON.createObjectNode();
    error.putObject("error").put("code", "engine_failed").put("message", "boom").put("param", "p");
    f.fail(error);
    JsonNode e = failing.json(3);
    assertThat(failing.names.get(3)).isEqualTo("error");
    assertThat(e.get("sequence_number").asInt()).isEqualTo(3);
    assertThat(e.get("code").asText()).isEqualTo("engine_failed");
    assertThat(e.get("message").asText()).isEqualTo("boom");
    assertThat(e.get("param").asText()).isEqualTo("p");
  }
}
