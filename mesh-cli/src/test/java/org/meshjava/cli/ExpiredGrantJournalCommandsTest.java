package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.ReplayState;

/**
 * The journal commands over a journal whose replay forgets an expired grant (SPEC 30 §8, SPEC.md
 * 60.2): its spend leaves the replay's ledger and its chain the replay's table, but the commands
 * still report and check what the journal holds.
 */
class ExpiredGrantJournalCommandsTest {
  @TempDir Path tmp;

  /**
   * {@code mesh journal inspect} took its figures from the replay's spend ledger: a grant debited
   * and then expired read "spent 0 uJ", its whole budget left, although the journal holds its
   * debits.
   */
  @Test
  void inspect_ofAGrantDebitedThenExpired_showsItsDebits() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    ExpiredGrantJournal f = ExpiredGrantJournal.writtenAt(journal);
    long debited =
        JournalFile.read(journal).records().stream()
            .filter(r -> r.entry() instanceof JournalEntry.Debited)
            .mapToLong(r -> ((JournalEntry.Debited) r.entry()).debitedUj())
            .findFirst()
            .orElseThrow();
    assertThat(debited).isPositive();

    Run inspect = mesh("journal", "inspect", journal.toString());

    assertThat(inspect.code()).as(inspect.err()).isZero();
    long budget = ExpiredGrantJournal.BUDGET_UJ;
    assertThat(inspect.out())
        .contains(
            "grant "
                + f.brief.leaf().id()
                + ": spent "
                + debited
                + " uJ of "
                + budget
                + ", "
                + (budget - debited)
                + " left");
  }

  /**
   * {@code mesh journal verify} accepts a snapshot written before expired chains were forgotten
   * (SPEC.md §60.8, "chains"): such a snapshot still holds every chain, and a steward starting from
   * it drops those its ledger's horizon has passed. Verify compared it byte for byte with a replay
   * that had dropped them, and refused a snapshot every start accepts.
   */
  @Test
  void verify_ofASnapshotThatStillHoldsAnExpiredChain_matchesTheReplay() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    ExpiredGrantJournal f = ExpiredGrantJournal.writtenAt(journal);
    // The snapshot an earlier build wrote at the journal's end: the replay's state, with every
    // chain recorded (the brief one, which this build's replay forgot at the second decision).
    DidKey steward = Jcp.identity(f.stewardKey);
    ReplayState replay =
        ReplayState.fresh(Gate.create(steward, SpendLedger.inMemory(), Revocations.none()));
    replay.applyAll(JournalFile.read(journal).records());
    SnapshotState current = replay.capture(-1);
    assertThat(current.chains()).containsExactly(f.hour);
    SnapshotState earlier =
        new SnapshotState(
            current.position(),
            current.ledger(),
            current.revocations(),
            current.suspension(),
            current.lastSealed(),
            current.receipts(),
            current.open(),
            current.settled(),
            current.checkpoint(),
            List.of(f.brief, f.hour),
            current.authorisations(),
            current.revocationsReplayed());
    FileSnapshotStore.beside(journal).save(Snapshot.sign(f.stewardKey, earlier));
    // Archived, with the segments kept: verify then replays the whole history and compares it
    // with the snapshot where it stands.
    Run archive = mesh("journal", "archive", journal.toString());
    assertThat(archive.code()).as(archive.err()).isZero();

    Run verify = mesh("journal", "verify", journal.toString());

    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("matches the replay");
  }
}
