package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.receipt.MeshReceipt;

/**
 * A reply's {@code model} is the backend as it was registered, routed and sealed in the receipt,
 * never the engine's {@code name()} asked again once the serve is sealed: an engine that answers
 * otherwise since (one naming itself after what it loaded) or throws (its own code) must neither
 * report a model its receipt does not name nor fail a reply whose serve was sealed and charged.
 */
class ModelNamedAsSealedTest {
  /** The cheapest backend, "cheap"; once {@code broken}, its name() throws. */
  private static final class NameBreaks extends ForwardingEngine {
    volatile boolean broken;

    NameBreaks() {
      super(Fixture.cheapBackend().build());
    }

    @Override
    public String name() {
      if (broken) {
        throw new IllegalStateException("name unreadable");
      }
      return super.name();
    }
  }

  private final NameBreaks engine = new NameBreaks();
  private final Fixture f = new Fixture(null, b -> b.backend(engine), b -> {});

  @AfterEach
  void close() {
    f.close();
  }

  /** Regression: 500 after the seal, the model read from name() for the reply. */
  @Test
  void aNameThatThrowsAfterTheBuild_stillAnswersBothEndpoints_namingTheSealedBackend()
      throws Exception {
    engine.broken = true;
    Fixture.Answer chatted = f.post("/v1/chat/completions", Fixture.chat("Say hello."));
    ObjectNode input = Fixture.JSON.createObjectNode().put("input", "Say hello.");
    Fixture.Answer responses = f.post("/v1/responses", input);

    assertThat(chatted.status()).as(chatted.body()).isEqualTo(200);
    JsonNode chat = chatted.json();
    assertThat(chat.get("model").asText()).isEqualTo("cheap");
    MeshReceipt receipt = Fixture.verifiedReceipt(chat.get("usage").get("energy"));
    assertThat(receipt.backend()).isEqualTo("cheap");
    assertThat(responses.status()).as(responses.body()).isEqualTo(200);
    assertThat(responses.json().get("model").asText()).isEqualTo("cheap");
  }

  /**
   * Regression: a backend whose name() threw failed /v1/models for every client (500): its
   * description failed, and the warning that leaves it out asked name() again.
   */
  @Test
  void aNameThatThrowsAfterTheBuild_isListedByItsRegisteredName() {
    engine.broken = true;

    Fixture.Answer list = f.get("/v1/models");

    assertThat(list.status()).as(list.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    list.json().get("data").forEach(m -> ids.add(m.get("id").asText()));
    assertThat(ids).contains("cheap", "small", "large");
  }
}
