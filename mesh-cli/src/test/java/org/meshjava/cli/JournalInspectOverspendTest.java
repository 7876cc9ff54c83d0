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
 * its debit records) read "spent 1000 uJ of 1000", so the books showed no overspend at all. Past
 * 2^63 − 1 the figure stops at the top of the range (SPEC 30 §8), and the line says so.
 */
class JournalInspectOverspendTest {
  private static final long BUDGET_UJ = 1_000;
  private static final long MEASURED_UJ = 5_000;

  @TempDir Path tmp;

  /** A meter whose counter reads {@code measuredUj} for every serve, above any estimate here. */
  private record OverReadingMeter(long measuredUj) implements EnergyMeter {
    @Override
    public String name() {
      return "over-reading";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      return new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          return Energy.measured(measuredUj, estimatedUj);
        }

        @Override
        public void abandon() {}
      };
    }
  }

  /**
   * Serves one request per prompt under a root grant of {@code budgetUj} with a joule ceiling of
   * {@code ceilingUj}, each measured at {@code measuredUj}, into a new journal; returns the chain.
   */
  private GrantChain serveGranted(
      Path journal, long budgetUj, long ceilingUj, long measuredUj, String... prompts)
      throws Exception {
    SigningKey stewardKey = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            Jcp.identity(stewardKey),
            budgetUj,
            now.minusSeconds(60),
            now.plusSeconds(3600));
    try (Steward s =
        ReferenceSteward.builder(stewardKey, FileJournal.open(journal))
            .meter(new OverReadingMeter(measuredUj))
            .clock(InstantSource.fixed(now))
            .chainHead(ChainHead.GENESIS)
            .build()) {
      for (String text : prompts) {
        byte[] prompt = text.getBytes(StandardCharsets.UTF_8);
        ServeRequest request =
            ServeRequest.generation(
                ContentId.ofBytes(prompt),
                prompt.length,
                new ServeBounds(3, Fidelity.F1, ceilingUj));
        s.serve(
            request, TokenSequence.of(new int[prompt.length]), Jcp.present(caller, chain, request));
      }
    }
    return chain;
  }

  @Test
  void inspect_ofAGrantDebitedPastItsBudget_showsTheDebitAndTheOverspend() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    GrantChain chain = serveGranted(journal, BUDGET_UJ, BUDGET_UJ, MEASURED_UJ, "hi");

    Run inspect = mesh("journal", "inspect", journal.toString());

    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out())
        .contains(
            "grant " + chain.leaf().id() + ": spent 5000 uJ of 1000, 0 left, overspent by 4000 uJ");
  }

  /**
   * A grant debited past 2^63 − 1: its figure stops at the top, so the line says "more than" it and
   * "overspent" without a sum it cannot know, rather than print the top as an exact spend.
   */
  @Test
  void inspect_ofAGrantDebitedPastTheRange_saysMoreThanTheTop_andOverspent() throws Exception {
    long top = Long.MAX_VALUE;
    Path journal = tmp.resolve("steward.journal");
    // The first serve leaves exactly one ceiling of the budget, so the second is admitted, and its
    // debit carries the sum past the range.
    GrantChain chain = serveGranted(journal, top, BUDGET_UJ, top - BUDGET_UJ, "one", "two");

    Run inspect = mesh("journal", "inspect", journal.toString());

    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out())
        .contains(
            "grant "
                + chain.leaf().id()
                + ": spent more than "
                + top
                + " uJ of "
                + top
                + ", 0 left, overspent\n");
  }
}
