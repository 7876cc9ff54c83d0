package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;

/**
 * Every granted form of {@link Steward#serve}: prompt text (whole and streamed), a decision asked
 * as text, and a decision on a caller's payload with its questions. Each rides on the grant it was
 * presented with: the receipt names the leaf and the grant is debited what was metered.
 */
class GrantedServeFormsTest {
  private static final long BUDGET = 10_000_000;
  private final GrantFixture f = new GrantFixture();

  private Steward steward() {
    return f.bare(new DurableMemoryJournal()).backend(DecisionServeTest.engine()).build();
  }

  private static void ridesOn(Steward s, GrantChain chain, ServeResult r, long before) {
    assertThat(r.receipt().grantId()).contains(chain.leaf().id().contentId());
    assertThat(s.spend().remainingUj(chain)).isEqualTo(before - r.receipt().energy().uj());
  }

  @Test
  void promptText_wholeAndStreamed_ridesOnTheGrant() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    PromptText prompt = PromptText.of("user 5\nhello\n");
    ServeRequest req = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    try (Steward s = steward()) {
      ServeResult whole = s.serve(req, prompt, f.present(chain, req));
      ridesOn(s, chain, whole, BUDGET);

      long before = s.spend().remainingUj(chain);
      List<Long> handed = new ArrayList<>();
      ServeResult streamed =
          s.serve(
              req,
              prompt,
              f.present(chain, req),
              route ->
                  token -> {
                    handed.add(Integer.toUnsignedLong(token));
                    return true;
                  });
      ridesOn(s, chain, streamed, before);
      assertThat(handed).hasSize(streamed.tokens().size()).isNotEmpty();
    }
  }

  @Test
  void decision_asTextOrWithItsQuestions_ridesOnTheGrant() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    DecisionPrompt prompt =
        new DecisionPrompt(DecisionServeTest.QUESTIONS, PromptText.of("invoice 42, twice"));
    ServeRequest asText = ServeRequest.decision(prompt, Fidelity.F1, 1_000_000);
    ServeRequest withQuestions = DecisionServeTest.request(0, 1_000_000);
    try (Steward s = steward()) {
      ServeResult text = s.serve(asText, prompt, f.present(chain, asText));
      ridesOn(s, chain, text, BUDGET);
      assertThat(text.answers()).hasSize(3);

      long before = s.spend().remainingUj(chain);
      ServeResult typed =
          s.serve(
              withQuestions,
              DecisionServeTest.PROMPT,
              DecisionServeTest.QUESTIONS,
              f.present(chain, withQuestions));
      ridesOn(s, chain, typed, before);
      assertThat(typed.answers()).hasSize(3);
    }
  }

  @Test
  void decisionPrompt_whoseTextTheRequestDoesNotAddress_isRefusedBeforeRouting() {
    DecisionPrompt asked =
        new DecisionPrompt(DecisionServeTest.QUESTIONS, PromptText.of("invoice 42, twice"));
    DecisionPrompt other =
        new DecisionPrompt(DecisionServeTest.QUESTIONS, PromptText.of("invoice 43, twice"));
    ServeRequest request = ServeRequest.decision(asked, Fidelity.F1, 1_000_000);
    Steward s = DecisionServeTest.steward(DecisionServeTest.engine());
    ServeException e = catchThrowableOfType(ServeException.class, () -> s.serve(request, other));
    assertThat(e.reason()).isEqualTo(ServeException.Reason.PROMPT_MISMATCH);
    assertThat(s.head().nextSequence()).isZero();
  }
}
