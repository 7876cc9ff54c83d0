package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.Tokenizer;
import org.meshjava.jcp.GrantChain;

/**
 * The routed engine's tokenizer, asked for the payload of a prompt given as text, under the one
 * rule for the JVM failing ({@link JvmFailure}): an OutOfMemoryError passes as it is, never a
 * refusal that blames the backend ({@code ENGINE_FAILED}, HTTP 502); it is met before any grant is
 * decided, so nothing is held or debited. Another Error of the tokenizer's code stays the backend
 * failing.
 */
class TokenizerJvmFailureTest {
  private static final long BUDGET = 1_000_000;

  private static final PromptText HELLO = PromptText.of("hello");

  private final GrantFixture f = new GrantFixture();

  /** The reference engine whose tokenizer throws {@code error}. */
  private static final class TokenizerThrows extends ForwardingEngine {
    private final Error error;

    TokenizerThrows(Error error) {
      super(GrantFixture.ref());
      this.error = error;
    }

    @Override
    public Tokenizer tokenizer() {
      throw error;
    }
  }

  @Test
  void anOutOfMemoryErrorFromTheTokenizer_passesAsItIs_holdingNothing() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(new TokenizerThrows(new OutOfMemoryError("simulated")))
            .build()) {
      ServeRequest req = ServeRequest.generation(HELLO, 3, Fidelity.F1, 50_000);

      assertThatThrownBy(() -> s.serve(req, HELLO, f.present(chain, req)))
          .isInstanceOf(OutOfMemoryError.class)
          .hasMessage("simulated");

      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  @Test
  void anAssertionErrorFromTheTokenizer_isTheBackendFailing() throws Exception {
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(new TokenizerThrows(new AssertionError("tokenizer broke")))
            .build()) {
      ServeRequest req = ServeRequest.generation(HELLO, 3, Fidelity.F1, 50_000);

      assertThatThrownBy(() -> s.serve(req, HELLO))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("could not turn the prompt into its payload");
    }
  }
}
