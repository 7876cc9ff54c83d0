package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.JournalHistory.CALLER;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.JournalHistory.T0;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocations;
import org.meshjava.journal.internal.JournalChain;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.ReplayState;

/**
 * A journal forgets a grant chain once a decision at or after the chain's earliest expiry is
 * recorded, since no later record can authorise it. A soak of `mesh serve` with callers issuing a
 * grant per call found every chain ever presented kept for the life of the process, in the
 * journal's table and the snapshotter's, and written into every snapshot.
 */
class ExpiredChainForgettingTest {

  @Test
  void snapshotState_afterADecisionPastAChainsExpiry_holdsOnlyTheUnexpiredChains()
      throws Exception {
    InMemoryJournal journal = new InMemoryJournal();
    GrantChain shortLived = chain(10);
    GrantChain longLived = chain(100);
    journal.append(authorised(shortLived, 1, T0.plusSeconds(1)));
    journal.append(authorised(longLived, 2, T0.plusSeconds(20)));

    ReplayState replay = replay(journal.records());

    assertThat(replay.capture(-1).chains()).containsExactly(longLived);
  }

  @Test
  void snapshotState_overManyShortLivedGrants_holdsAsFewChainsAsAreUnexpired() throws Exception {
    InMemoryJournal journal = new InMemoryJournal();
    for (int i = 0; i < 500; i++) {
      // One grant per call, each expiring 30 s after it is issued; one call a second.
      Instant at = T0.plusSeconds(i);
      journal.append(authorised(chain(i + 30), i, at));
    }

    ReplayState replay = replay(journal.records());

    assertThat(replay.capture(-1).chains()).hasSizeLessThanOrEqualTo(31);
  }

  @Test
  void aForgottenChain_presentedAgain_isRecordedAgainAndReadsBack() throws Exception {
    InMemoryJournal journal = new InMemoryJournal();
    GrantChain shortLived = chain(10);
    journal.append(authorised(shortLived, 1, T0.plusSeconds(1)));
    journal.append(authorised(chain(100), 2, T0.plusSeconds(20)));
    // Only a writer's view: the gate would refuse this decision, but a writer that forgot the
    // chain must record it again rather than name a chain no reader still holds.
    journal.append(authorised(shortLived, 3, T0.plusSeconds(5)));

    List<JournalRecord> read = JournalChain.recover(journal.lines()).recovered();
    // The tools' scan forgets the chain where the writer did, and takes it again as recorded.
    assertThat(scan(journal.lines()).end().count()).isEqualTo(journal.records().size());

    assertThat(read).hasSize(journal.records().size());
    assertThat(
            read.stream()
                .filter(
                    r -> r.entry() instanceof JournalEntry.Chain c && c.chain().equals(shortLived))
                .count())
        .isEqualTo(2);
  }

  @Test
  void snapshotState_capturedBeforeRecordsReadPastIt_stillHoldsTheChainsTheyName(@TempDir Path dir)
      throws Exception {
    GrantChain shortLived = chain(10);
    try (FileJournal journal = FileJournal.openUnsynced(dir.resolve("steward.journal"))) {
      journal.append(authorised(shortLived, 1, T0.plusSeconds(1))); // records 0 (Chain), 1
      journal.append(authorised(shortLived, 2, T0.plusSeconds(5))); // 2
      journal.append(authorised(chain(100), 3, T0.plusSeconds(20))); // 3 (Chain), 4: past expiry

      // As the snapshotter does: read to the end, apply only what was there when it looked.
      ReplayState first = ReplayState.fresh(JournalHistory.gate());
      journal.read(
          JournalPosition.GENESIS,
          first.chains(),
          r -> {
            if (r.seq() < 2) {
              first.apply(r);
            }
          });
      SnapshotState captured = first.capture(-1);

      // A restart from that snapshot reads record 2, which names the short-lived chain.
      ReplayState restored =
          ReplayState.restore(captured, Snapshot.gate(STEWARD_ID, captured, Revocations.none()));
      journal.read(restored.position(), restored.chains(), restored::apply);

      assertThat(restored.position().count()).isEqualTo(5);
      assertThat(restored.capture(-1).chains()).doesNotContain(shortLived);
    }
  }

  @Test
  void scanningAJournalOfAGrantPerCall_fromItsFirstRecord_holdsAsFewChainsAsAreUnexpired()
      throws Exception {
    // What `mesh journal verify`, `export` and `import` read a journal with, file or database: a
    // PostgreSQL journal opened with every chain its history recorded, all of them at once.
    InMemoryJournal journal = new InMemoryJournal();
    for (int i = 0; i < 500; i++) {
      journal.append(authorised(chain(i + 30), i, T0.plusSeconds(i)));
    }
    JournalFile.Scanner scanner = scan(journal.lines());

    assertThat(scanner.end().count()).isEqualTo(journal.records().size());
    assertThat(scanner.chainsHeld()).isLessThanOrEqualTo(31);
  }

  private static JournalFile.Scanner scan(List<byte[]> lines) throws JournalException {
    JournalFile.Scanner scanner = JournalFile.scanner(n -> {});
    for (byte[] line : lines) {
      scanner.takeStored(line);
    }
    return scanner;
  }

  private static ReplayState replay(List<JournalRecord> records) throws JournalException {
    ReplayState s = ReplayState.fresh(JournalHistory.gate());
    for (JournalRecord r : records) {
      s.apply(r);
    }
    return s;
  }

  /** A grant from the caller to the steward, expiring {@code seconds} after {@link T0}. */
  private static GrantChain chain(int seconds) throws Exception {
    return Jcp.issueRoot(
        CALLER, STEWARD_ID, 1_000_000, T0.minusSeconds(60), T0.plusSeconds(seconds));
  }

  private static JournalEntry.Authorised authorised(GrantChain chain, int i, Instant at)
      throws Exception {
    ServeRequest req = JournalHistory.request(i);
    Presentation p = Presentation.sign(CALLER, chain, req.id(), JournalHistory.nonce(i));
    return new JournalEntry.Authorised(p, req, Optional.empty(), "backend", at);
  }
}
