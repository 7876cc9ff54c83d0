package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.MeshReceipt;

/**
 * Regression for the binding's second router: with a cheap decision-only engine registered next to
 * a generator that has its own vocabulary (the example configuration's shape), a chat request
 * reaches the generator as its own tokenizer's ids, never as byte values.
 */
class RouteOnceTest {

  /** Each byte b becomes id 1000 + b; output ids are rendered in decimal. */
  static final Tokenizer SHIFTED =
      new Tokenizer() {
        @Override
        public String name() {
          return "shifted";
        }

        @Override
        public TokenSequence encode(byte[] promptText) {
          int[] ids = new int[promptText.length];
          for (int i = 0; i < ids.length; i++) {
            ids[i] = 1000 + (promptText[i] & 0xFF);
          }
          return TokenSequence.of(ids);
        }

        @Override
        public String decode(TokenSequence output) {
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < output.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(output.get(i));
          }
          return sb.toString();
        }
      };

  /** The cheapest backend, which only answers typed questions. */
  static final class QuestionsOnly implements DecisionEngine {
    final ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("decider")
            .fidelity(Fidelity.F2)
            .costProfile(CostProfile.perToken(1))
            .build();

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Recipe recipe() {
      return inner.recipe();
    }

    @Override
    public Fidelity fidelity() {
      return inner.fidelity();
    }

    @Override
    public CostProfile costProfile() {
      return inner.costProfile();
    }

    @Override
    public boolean servesPayloadAlone() {
      return false;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      throw new EngineException("needs its questions");
    }

    @Override
    public DecisionResult decide(ServeRequest r, TokenSequence p, List<DecisionQuestion> q)
        throws EngineException {
      return inner.decide(r, p, q);
    }
  }

  static final ReferenceEngine GENERATOR =
      ReferenceEngine.builder()
          .name("generator")
          .recipe(Recipe.of("generator"))
          .fidelity(Fidelity.F2)
          .costProfile(CostProfile.perToken(10))
          .workPerToken(1)
          .tokenizer(SHIFTED)
          .build();

  private final Fixture f =
      new Fixture(
          org.meshjava.core.crypto.SigningKey.generate(),
          b -> b.backend(new QuestionsOnly()).backend(GENERATOR),
          s -> {});

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void chat_atTheGeneratorsFloor_reachesItAsItsOwnTokenizersIds() throws Exception {
    ObjectNode body = Fixture.chat("Say hello.");
    body.putObject("metadata").put("fidelity_floor", "F2").put("joule_ceiling_uj", "1000000");
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode r = a.json();
    assertThat(r.get("model").asText()).isEqualTo("generator");
    MeshReceipt receipt = Fixture.verifiedReceipt(r.get("usage").get("energy"));

    ServeRequest request = GrantedServeRequest.derive(body);
    TokenSequence own = SHIFTED.encode(Prompt.ofChat(body).bytes());
    TokenSequence expected = GENERATOR.serve(request, own).tokens();
    // The text is the generator's own decoding of what it produced from its own ids ...
    assertThat(r.get("choices").get(0).get("message").get("content").asText())
        .isEqualTo(SHIFTED.decode(expected));
    // ... and the receipt commits to exactly that payload and output.
    f.steward.disclose(receipt, own, expected).verify(receipt);
  }
}
