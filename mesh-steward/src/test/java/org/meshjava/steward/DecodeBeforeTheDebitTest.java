package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;

/**
 * A generation asked as prompt text is answered as text: the steward decodes the output with the
 * routed engine's tokenizer once the work passed its checks and before the serve is debited or
 * sealed ({@link ServeResult#text()}). A tokenizer that cannot decode it refuses the serve {@code
 * ENGINE_FAILED}, the work debited as for any engine failing after it ran (§2 phase 3) and nothing
 * sealed, so no receipt stands for an answer the caller never got.
 */
class DecodeBeforeTheDebitTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;
  private static final PromptText HELLO = PromptText.of("hello");

  private final GrantFixture f = new GrantFixture();

  /** The reference engine whose tokenizer encodes but throws when it decodes. */
  private static final class DecodeThrows extends ForwardingEngine {
    DecodeThrows() {
      super(GrantFixture.ref());
    }

    @Override
    public Tokenizer tokenizer() {
      Tokenizer inner = super.tokenizer();
      return new Tokenizer() {
        @Override
        public String name() {
          return inner.name();
        }

        @Override
        public TokenSequence encode(byte[] promptText) {
          return inner.encode(promptText);
        }

        @Override
        public String decode(TokenSequence output) {
          throw new IllegalArgumentException("not text");
        }
      };
    }
  }

  @Test
  void aGenerationAskedAsText_carriesItsTextDecoded() throws Exception {
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(GrantFixture.ref()).build()) {
      ServeRequest req = ServeRequest.generation(HELLO, 3, Fidelity.F1, CEILING);

      ServeResult r = s.serve(req, HELLO);

      assertThat(r.text()).contains(GrantFixture.ref().tokenizer().decode(r.tokens()));
      ServeRequest tokens = GrantFixture.request("tokens", 3, CEILING);
      assertThat(s.serve(tokens, GrantFixture.payload(tokens)).text()).isEmpty();
    }
  }

  /**
   * Regression: the decode came after the seal, in the HTTP binding, so the receipt was sealed and
   * the grant debited for a reply that failed (HTTP 500).
   */
  @Test
  void aTokenizerThatCannotDecode_refusesTheServe_sealingNothing() throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(journal).backend(new DecodeThrows()).build()) {
      ServeRequest req = ServeRequest.generation(HELLO, 3, Fidelity.F1, CEILING);

      assertThatThrownBy(() -> s.serve(req, HELLO, f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining("backend ref failed: it could not decode its output");

      assertThat(s.head().nextSequence()).isZero();
      assertThat(journal.records().stream().map(rec -> rec.entry()))
          .noneMatch(JournalEntry.Sealed.class::isInstance);
      long debited = BUDGET - s.spend().remainingUj(chain);
      assertThat(debited).isGreaterThan(0).isLessThan(CEILING);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /**
   * The failed decode's spend is the journal's, not this process's alone: its {@code Debited}
   * record (and no {@code Sealed} one) is written, so a steward started again on the journal finds
   * the grant spent alike, and nothing held or unresolved.
   */
  @Test
  void aFailedDecodesDebit_isJournalled_andARestartFindsTheSameSpend(@TempDir Path dir)
      throws Exception {
    Path journal = dir.resolve("steward.journal");
    GrantChain chain = f.chain(BUDGET);
    ServeRequest req = ServeRequest.generation(HELLO, 3, Fidelity.F1, CEILING);
    long remaining;
    try (Steward s = f.bare(FileJournal.open(journal)).backend(new DecodeThrows()).build()) {
      assertThatThrownBy(() -> s.serve(req, HELLO, f.present(chain, req)))
          .isInstanceOf(ServeException.class);
      remaining = s.spend().remainingUj(chain);
    }
    assertThat(remaining).isLessThan(BUDGET);
    try (FileJournal j = FileJournal.open(journal)) {
      assertThat(j.recovered().stream().map(rec -> rec.entry()))
          .noneMatch(JournalEntry.Sealed.class::isInstance)
          .filteredOn(JournalEntry.Debited.class::isInstance)
          .map(e -> ((JournalEntry.Debited) e).debitedUj())
          .containsExactly(BUDGET - remaining);
    }

    try (Steward again = f.bare(FileJournal.open(journal)).backend(new DecodeThrows()).build()) {
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.unresolved()).isEmpty();
      assertThat(again.head().nextSequence()).isZero();
    }
  }
}
