package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;

/**
 * {@link Steward#close()} from one thread while an application's pool serves on others, granted and
 * ungranted, over a file journal, with no grace ({@code mesh serve}'s) and with a long one. Each
 * round lines the serving threads up on a barrier, closes once some receipts are sealed, and then
 * checks what §2.2 asks: every serve either hands out a receipt or is refused {@code NOT_RECORDED},
 * none hangs, the journal replays clean, it holds exactly the receipts handed out, nothing is
 * written to it once the close has returned, and no grant is debited more than its serves can
 * account for.
 */
@Timeout(120)
class CloseWhileServingTest {
  private static final int THREADS = 4;
  private static final long BUDGET_UJ = 1_000_000_000;
  private static final long CEILING_UJ = 70_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void closeWithServesInFlight_sealsOrRefusesEach_andLeavesAJournalThatReplays() throws Exception {
    ServingPool.rounds(5, this::round);
  }

  @Test
  @Tag("slow")
  void closeWithServesInFlight_manyRounds() throws Exception {
    ServingPool.rounds(1000, this::round);
  }

  private void round(int round) throws Exception {
    Duration grace = round % 2 == 0 ? Duration.ZERO : Duration.ofSeconds(30);
    Path journal = dir.resolve("round-" + round + ".journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    Steward s = f.steward(FileJournal.open(journal)).closeGrace(grace).build();
    ServingPool serving =
        ServingPool.start(
            THREADS, ServingPool.halfGranted(f, s, chain, String.valueOf(round), CEILING_UJ));
    serving.awaitSealed(THREADS * 2);
    s.close();
    long lengthAtClose = Files.size(journal);
    serving.end();

    assertThat(serving.refused)
        .as("round %d: every refusal is one a closed steward gives", round)
        .hasSize(THREADS)
        .allSatisfy(e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(Files.size(journal))
        .as("nothing written after close returned")
        .isEqualTo(lengthAtClose);
    List<Long> sequences =
        serving.handedOut.stream().map(r -> r.receipt().sequence()).sorted().toList();
    assertThat(sequences)
        .as("round %d: the receipts handed out form one chain from 0", round)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.range(0, sequences.size()).boxed().toList());
    long debitedBySealed = serving.grantedJoules();
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.head().nextSequence())
          .as("round %d: the journal holds exactly the receipts handed out", round)
          .isEqualTo(sequences.size());
      long spent = BUDGET_UJ - again.spend().remainingUj(chain);
      // A granted serve refused after its engine ran is debited (or held at its ceiling) with no
      // receipt; at most one per thread was refused.
      assertThat(spent).isBetween(debitedBySealed, debitedBySealed + THREADS * CEILING_UJ);
    }
  }
}
