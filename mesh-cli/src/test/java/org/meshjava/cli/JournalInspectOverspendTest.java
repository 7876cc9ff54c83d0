package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;

/**
 * {@code mesh journal inspect} reports what each grant was debited. It printed the budget less what
 * was left, a figure that stops at the budget: a grant debited five times its budget (the breach
 * its debit records) read "spent 1000 uJ of 1000", so the books showed no overspend at all.
 */
class JournalInspectOverspendTest {
  private static final long BUDGET_UJ = 1_000;
  private static final long MEASURED_UJ = 5_000;

  @TempDir Path tmp;

  /** A meter whose counter reads {@link #MEASURED_UJ} for every serve, above any estimate here. */
  private static final class OverReadingMeter implements EnergyMeter {
    @Override
    public String name() {
      return "over-reading";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      return new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          return Energy.measured(MEASURED_UJ, estimatedUj);
        }

        @Override
        public void abandon() {}
      };
    }
  }

  @Test
  void inspect_ofAGrantDebitedPastItsBudget_showsTheDebitAndTheOverspend() throws Exception {
    SigningKey stewardKey = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
    Path journal = tmp.resolve("steward.journal");
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            Jcp.identity(stewardKey),
            BUDGET_UJ,
            now.minusSeconds(60),
            now.plusSeconds(3600));
    byte[] prompt = "hi".getBytes(StandardCharsets.UTF_8);
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(prompt), prompt.length, new ServeBounds(3, Fidelity.F1, BUDGET_UJ));
    try (Steward s =
        ReferenceSteward.builder(stewardKey, FileJournal.open(journal))
            .meter(new OverReadingMeter())
            .clock(InstantSource.fixed(now))
            .chainHead(ChainHead.GENESIS)
            .build()) {
      s.serve(
          request, TokenSequence.of(new int[prompt.length]), Jcp.present(caller, chain, request));
    }

    Run inspect = mesh("journal", "inspect", journal.toString());

    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out())
        .contains(
            "grant " + chain.leaf().id() + ": spent 5000 uJ of 1000, 0 left, overspent by 4000 uJ");
  }
}
