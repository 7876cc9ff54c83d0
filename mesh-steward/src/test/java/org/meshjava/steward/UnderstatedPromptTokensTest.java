package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;

/**
 * A grant reserves the request's joule ceiling, and the router checks the ceiling against an
 * estimate priced on the {@code prompt_tokens} the caller declares. A caller holding a small grant
 * declared 0 prompt tokens for a long payload: routed at a ceiling of a few hundred µJ, it was
 * served and debited about a hundred times its whole budget (recorded as a breach, but spent). The
 * steward now prices the payload the engine will run before it decides the grant.
 */
class UnderstatedPromptTokensTest {
  private static final long UJ_PER_TOKEN = 100;
  private static final long MAX_TOKENS = 4;
  private static final long BUDGET = 1_000;

  /** What the router estimates for 0 declared prompt tokens: only the output. */
  private static final long CEILING = UJ_PER_TOKEN * MAX_TOKENS;

  private final GrantFixture f = new GrantFixture();

  private static ServeRequest declaring(long promptTokens, long ceilingUj) {
    return ServeRequest.generation(
        ContentId.ofBytes("a long prompt".getBytes(StandardCharsets.UTF_8)),
        promptTokens,
        new ServeBounds(MAX_TOKENS, Fidelity.F1, ceilingUj));
  }

  private Steward steward(DurableMemoryJournal journal) {
    return f.bare(journal)
        .backend(
            ReferenceEngine.builder()
                .name("ref")
                .costProfile(CostProfile.perToken(UJ_PER_TOKEN))
                .build())
        .build();
  }

  @Test
  void grantedServe_whosePayloadOutrunsTheDeclaredPromptTokens_isRefusedBeforeTheGrantIsDecided()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    TokenSequence longPayload = TokenSequence.of(new int[1_000]);
    try (Steward s = steward(journal)) {
      ServeRequest understated = declaring(0, CEILING);
      ServeException e =
          catchThrowableOfType(
              ServeException.class,
              () -> s.serve(understated, longPayload, f.present(chain, understated)));
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(ServeException.Reason.OVER_CEILING);
      assertThat(e.getMessage()).contains("1000 tokens", "prompt_tokens 0", "ceiling of 400 µJ");
      assertThat(journal.records()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
    }
  }

  @Test
  void grantedServe_whoseCeilingCoversThePayload_isServedWhateverItDeclared() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = steward(new DurableMemoryJournal())) {
      // Declares 0 but pays for its 6 tokens: 100 × (6 + 4) = 1000 µJ, exactly the ceiling.
      ServeRequest covered = declaring(0, UJ_PER_TOKEN * (6 + MAX_TOKENS));
      s.serve(covered, TokenSequence.of(new int[6]), f.present(chain, covered));
      assertThat(s.spend().remainingUj(chain)).isZero();
    }
  }

  @Test
  void ungrantedServe_isNotHeldToThePayloadEstimate() throws Exception {
    try (Steward s = steward(new DurableMemoryJournal())) {
      ServeRequest understated = declaring(0, CEILING);
      assertThat(s.serve(understated, TokenSequence.of(new int[1_000])).receipt()).isNotNull();
    }
  }
}
