package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;

/**
 * One presentation (a leaf and a nonce spend once, jcp profile §2.1) shown by 16 threads at once,
 * and 16 presentations racing for a budget that holds three ceilings: one of the first is served
 * and the rest refused {@code presentation-spent}; the second never spend past the budget; in both
 * the journal holds one decision per receipt handed out, each debited once, the debits add up to
 * what the receipts sealed, and a restart reaches the same spend. Nothing found; pinned.
 */
@Timeout(120)
class SamePresentationRaceTest {
  private static final int THREADS = 16;
  private static final long CEILING_UJ = 70_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void onePresentationShownBy16Threads_isServedOnce() throws Exception {
    ServingPool.rounds(5, this::samePresentation);
  }

  @Test
  void sixteenPresentationsRacingForThreeCeilings_neverSpendPastTheBudget() throws Exception {
    ServingPool.rounds(5, this::tightBudget);
  }

  @Test
  @Tag("slow")
  void bothRaces_manyRounds() throws Exception {
    ServingPool.rounds(
        200,
        r -> {
          samePresentation(r);
          tightBudget(r);
        });
  }

  private void samePresentation(int round) throws Exception {
    Path journal = dir.resolve("same-" + round + ".journal");
    GrantChain chain = f.chain(1_000_000_000);
    ServeRequest req = GrantFixture.request("same " + round, 4, CEILING_UJ);
    Presentation shown = f.present(chain, req);
    ServingPool race;
    try (Steward s = f.steward(FileJournal.open(journal)).build()) {
      race = race((t, i) -> s.serve(req, GrantFixture.payload(req), shown));
      assertThat(race.handedOut).as("round %d: served once", round).hasSize(1);
      assertThat(race.refused)
          .as("round %d", round)
          .hasSize(THREADS - 1)
          .allSatisfy(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          GrantDeniedException.class,
                          d -> assertThat(d.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT)));
      checkJournal(journal, race, s.spend().remainingUj(chain), chain, round);
    }
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      try {
        again.serve(req, GrantFixture.payload(req), shown);
        throw new AssertionError("round " + round + ": served again after a restart");
      } catch (GrantDeniedException e) {
        assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
      }
    }
  }

  private void tightBudget(int round) throws Exception {
    Path journal = dir.resolve("budget-" + round + ".journal");
    long budget = 3 * CEILING_UJ;
    GrantChain chain = f.chain(budget);
    try (Steward s = f.steward(FileJournal.open(journal)).build()) {
      ServingPool race =
          race(
              (t, i) -> {
                ServeRequest req = GrantFixture.request("budget " + round + "/" + t, 4, CEILING_UJ);
                return s.serve(req, GrantFixture.payload(req), f.present(chain, req));
              });
      assertThat(race.handedOut).as("round %d: some served", round).isNotEmpty();
      assertThat(race.refused)
          .allSatisfy(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          GrantDeniedException.class,
                          d -> assertThat(d.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED)));
      long remaining = s.spend().remainingUj(chain);
      assertThat(remaining).as("round %d: never past the budget", round).isNotNegative();
      checkJournal(journal, race, remaining, chain, round);
      assertThat(budget - remaining).isEqualTo(sealedUj(race));
    }
  }

  /**
   * One decision per receipt handed out, each debited once; the debits add up to the sealed
   * figures; a restart reaches the same remaining budget, with nothing unresolved.
   */
  private void checkJournal(
      Path journal, ServingPool race, long remaining, GrantChain chain, int round)
      throws Exception {
    List<JournalRecord> records = JournalFile.read(journal).records();
    List<Long> decided = new ArrayList<>();
    List<Long> debited = new ArrayList<>();
    long debitedUj = 0;
    int sealed = 0;
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Authorised a -> decided.add(r.seq());
        case JournalEntry.Debited d -> {
          debited.add(d.authorised());
          debitedUj += d.debitedUj();
        }
        case JournalEntry.Sealed x -> sealed++;
        default -> {}
      }
    }
    assertThat(decided)
        .as("round %d: one decision per receipt", round)
        .hasSize(race.handedOut.size());
    assertThat(debited).containsExactlyInAnyOrderElementsOf(decided);
    assertThat(sealed).isEqualTo(race.handedOut.size());
    assertThat(debitedUj)
        .as("round %d: debits are what was sealed", round)
        .isEqualTo(sealedUj(race));
    // Restarted on a copy, so the live steward keeps its journal.
    Path copy = dir.resolve(journal.getFileName() + ".copy");
    java.nio.file.Files.copy(journal, copy);
    try (Steward again = f.steward(FileJournal.open(copy)).build()) {
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.unresolved()).isEmpty();
    }
  }

  private static long sealedUj(ServingPool race) {
    return race.handedOut.stream().mapToLong(r -> r.receipt().energy().uj()).sum();
  }

  /** Each of {@link #THREADS} threads serves once, all released together. */
  private static ServingPool race(ServingPool.Serve serve) throws Exception {
    ServingPool race = ServingPool.start(THREADS, 1, serve);
    race.end();
    return race;
  }
}
