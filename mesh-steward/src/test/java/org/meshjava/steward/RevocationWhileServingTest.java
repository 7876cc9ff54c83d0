package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;

/**
 * A grant revoked (SPEC.md 30 §11) while a pool of threads serves on it. The revocation and every
 * decision are ordered by one lock, so the journal says which side of the revocation each decision
 * fell on: no decision is journalled after the {@code Revoked} record, every journalled decision is
 * debited exactly once, every serve either seals or is refused {@code revoked} (or, decided before,
 * is served), and a restart rebuilds the same spend.
 */
@Timeout(120)
class RevocationWhileServingTest {
  private static final int THREADS = 4;
  private static final long BUDGET_UJ = 1_000_000_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aRevocationAmidGrantedServes_admitsNoDecisionAfterIt_andDebitsEachOnce() throws Exception {
    ServingPool.rounds(8, this::round);
  }

  @Test
  @Tag("slow")
  void aRevocationAmidGrantedServes_manyRounds() throws Exception {
    ServingPool.rounds(300, this::round);
  }

  private void round(int round) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    long remainingBefore;
    try (Steward s = f.steward(FileJournal.open(journal)).build()) {
      ServingPool serving =
          ServingPool.start(
              THREADS,
              (thread, i) -> {
                ServeRequest req = GrantFixture.request(round + "/" + thread + "/" + i, 4, 70_000);
                return s.serve(req, GrantFixture.payload(req), f.present(chain, req));
              });
      serving.awaitSealed(THREADS);
      assertThat(s.revoke(Revocation.sign(f.org, chain, GrantFixture.NOW))).isTrue();
      serving.end();
      assertThat(serving.refused)
          .as("round %d: each thread stops at the revocation", round)
          .hasSize(THREADS)
          .allSatisfy(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          GrantDeniedException.class,
                          d -> assertThat(d.label()).isEqualTo(DenialLabel.REVOKED)));
      remainingBefore = s.spend().remainingUj(chain);
    }

    List<JournalRecord> records = JournalFile.read(journal).records();
    int revoked = -1;
    Map<Long, Integer> debits = new HashMap<>();
    List<Long> decided = new ArrayList<>();
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Revoked x -> revoked = (int) r.seq();
        case JournalEntry.Authorised a -> {
          assertThat(revoked).as("round %d: a decision after the revocation", round).isNegative();
          decided.add(r.seq());
        }
        case JournalEntry.Debited d -> debits.merge(d.authorised(), 1, Integer::sum);
        default -> {}
      }
    }
    assertThat(revoked).isNotNegative();
    assertThat(debits).as("round %d: each decision debited once", round).hasSize(decided.size());
    assertThat(debits.keySet()).containsExactlyInAnyOrderElementsOf(decided);
    assertThat(debits.values()).containsOnly(1);
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remainingBefore);
      assertThat(again.unresolved()).isEmpty();
    }
  }
}
