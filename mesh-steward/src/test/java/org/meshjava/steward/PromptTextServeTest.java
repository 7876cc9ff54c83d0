package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.engine.ReferenceEngine;

/**
 * Prompt text is tokenized once, by the engine the steward routed to, with every admission rule
 * applied first: the example configuration's shape (a cheap decision-only engine next to a
 * generator with its own vocabulary) hands the generator its own ids, never byte values.
 */
class PromptTextServeTest {

  /** A vocabulary that is not bytes: each byte b becomes id 1000 + b. */
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
          return output.toString();
        }
      };

  /** A generator with its own tokenizer that records every payload it is handed. */
  static final class OwnVocabulary implements ServingEngine {
    final ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("generator")
            .recipe(Recipe.of("generator"))
            .costProfile(CostProfile.perToken(50))
            .tokenizer(SHIFTED)
            .build();
    final List<TokenSequence> handed = Collections.synchronizedList(new ArrayList<>());

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
    public boolean deterministic() {
      return true;
    }

    @Override
    public Tokenizer tokenizer() {
      return inner.tokenizer();
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      handed.add(prompt);
      return inner.serve(request, prompt);
    }
  }

  static final PromptText PROMPT = PromptText.of("user 5\nhello\n");

  @Test
  void generation_onPromptText_handsTheRoutedEngineItsOwnTokenizersIds() throws Exception {
    OwnVocabulary generator = new OwnVocabulary();
    // The decision-only engine is cheaper and registered first: only the steward's admission
    // rule keeps a generation off it, so a second router without that rule would pick it.
    Steward s = DecisionServeTest.steward(new PayloadAloneRoutingTest.QuestionsOnly(), generator);
    ServeRequest request = ServeRequest.generation(PROMPT, 4, Fidelity.F1, 100_000);

    ServeResult r = s.serve(request, PROMPT);

    TokenSequence own = SHIFTED.encode(PROMPT.bytes());
    assertThat(r.receipt().backend()).isEqualTo("generator");
    assertThat(generator.handed).containsExactly(own);
    assertThat(r.payload()).isEqualTo(own);
    assertThat(r.receipt().requestId()).isEqualTo(request.id());
    assertThat(request.promptHash()).isEqualTo(ContentId.ofBytes(PROMPT.bytes()));
    assertThat(request.promptTokens()).isEqualTo(PROMPT.length());
    // The commitment binds the payload the engine was handed.
    s.disclose(r).verify(r.receipt());
  }

  @Test
  void requestId_isTheSameWhicheverEngineServes() throws Exception {
    ServeRequest request = ServeRequest.generation(PROMPT, 4, Fidelity.F1, 100_000);
    ServeResult own = DecisionServeTest.steward(new OwnVocabulary()).serve(request, PROMPT);
    ServeResult bytes =
        DecisionServeTest.steward(DecisionServeTest.engine()).serve(request, PROMPT);
    assertThat(own.receipt().requestId()).isEqualTo(bytes.receipt().requestId());
    assertThat(bytes.payload()).isEqualTo(ByteTokenizer.INSTANCE.encode(PROMPT.bytes()));
    assertThat(own.payload()).isNotEqualTo(bytes.payload());
  }

  @Test
  void decision_onPromptText_goesToTheDecisionEngine_laidOutByIt() throws Exception {
    OwnVocabulary generator = new OwnVocabulary();
    Steward s = DecisionServeTest.steward(generator, new PayloadAloneRoutingTest.QuestionsOnly());
    DecisionPrompt prompt =
        new DecisionPrompt(DecisionServeTest.QUESTIONS, PromptText.of("invoice 42, twice"));
    ServeRequest request = ServeRequest.decision(prompt, Fidelity.F1, 1_000_000);

    ServeResult r = s.serve(request, prompt);

    assertThat(r.receipt().backend()).isEqualTo("questions-only");
    assertThat(r.answers()).hasSize(3);
    assertThat(r.payload()).isEqualTo(ByteTokenizer.INSTANCE.encode(prompt.text().bytes()));
    assertThat(request.promptHash()).isEqualTo(prompt.text().hash());
    assertThat(request.decision().orElseThrow().schemaTokens())
        .isEqualTo(DecisionPrompt.schema(DecisionServeTest.QUESTIONS).length);
    assertThat(generator.handed).isEmpty();
  }

  /**
   * The refusal says what to do as well as what is wrong: a user's first mismatch (a request made
   * from one text, served with another) was told only that two hashes differ.
   */
  @Test
  void promptText_thatTheRequestDoesNotAddress_isRefusedBeforeRouting() {
    OwnVocabulary generator = new OwnVocabulary();
    Steward s = DecisionServeTest.steward(generator);
    ServeRequest request = ServeRequest.generation(PROMPT, 4, Fidelity.F1, 100_000);
    assertThatThrownBy(() -> s.serve(request, PromptText.of("user 5\nHELLO\n")))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.PROMPT_MISMATCH))
        .hasMessageContaining("make the request from that same prompt");
    assertThat(generator.handed).isEmpty();
    assertThat(s.head().nextSequence()).isZero();
  }

  @Test
  void decisionPrompt_withAShapeTheRequestDoesNotCarry_isRefused() {
    Steward s = DecisionServeTest.steward(new PayloadAloneRoutingTest.QuestionsOnly());
    DecisionPrompt prompt = new DecisionPrompt(DecisionServeTest.QUESTIONS, PromptText.of("state"));
    ServeRequest right = ServeRequest.decision(prompt, Fidelity.F1, 1_000_000);
    ServeRequest wrongSchema =
        ServeRequest.decision(
            right.promptHash(),
            right.promptTokens(),
            new ServeBounds(0, Fidelity.F1, 1_000_000),
            org.meshjava.core.DecisionQuestion.shapeOf(DecisionServeTest.QUESTIONS, 3));
    assertThatThrownBy(() -> s.serve(wrongSchema, prompt))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.QUESTIONS_MISMATCH));
    ServeRequest generation = ServeRequest.generation(prompt.text(), 4, Fidelity.F1, 1_000_000);
    assertThatThrownBy(() -> s.serve(generation, prompt))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.QUESTIONS_MISMATCH));
  }

  @Test
  void promptText_refusesAnUnpairedSurrogate() {
    assertThatThrownBy(() -> PromptText.of("a\uD800b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(PromptText.of("\uD83D\uDE00").length()).isEqualTo(4);
  }
}
