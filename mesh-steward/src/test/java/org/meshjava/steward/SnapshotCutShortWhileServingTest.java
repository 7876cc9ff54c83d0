package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.PackedSpent;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;

/**
 * A steward restarted from a snapshot file reads the spent presentations in place, from the file
 * mapped into memory (SPEC.md §60.9). Something that cuts that file short while the steward runs
 * ({@code cp} over it, {@code truncate}) makes the next such read fault: the serve must be refused
 * in words that name the snapshot and what to do, and grants refused until a restart (which refuses
 * the cut file and replays the journal), never a raw {@link InternalError}, and nothing decided or
 * spent for the refused serve.
 */
class SnapshotCutShortWhileServingTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Steward open() throws Exception {
    return open(f, dir);
  }

  /**
   * A steward of {@code f}'s on the journal in {@code dir}, keeping its snapshots in {@code
   * dir/snaps}, written only when asked for and on close.
   */
  static Steward open(GrantFixture f, Path dir) throws Exception {
    return f.steward(FileJournal.open(dir.resolve("journal")))
        .snapshots(new FileSnapshotStore(dir.resolve("snaps")))
        .snapshotEvery(0)
        .build();
  }

  /**
   * Truncates the latest snapshot file in {@code dir/snaps}, which a start restored from, or a
   * steward saved and read back, and goes on reading.
   */
  static void cutLatestSnapshot(Path dir) throws Exception {
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir.resolve("snaps"))) {
      files = listed.filter(p -> p.toString().endsWith(".snapshot")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    try (FileChannel ch = FileChannel.open(files.getLast(), StandardOpenOption.WRITE)) {
      ch.truncate(0);
    }
  }

  /**
   * Regression: the serve threw "java.lang.InternalError: a fault occurred in an unsafe memory
   * access operation" out of the steward, which the HTTP front answered as a bug.
   */
  @Test
  void aSnapshotCutShortUnderARunningSteward_refusesGrants_typed_andSpendsNothing()
      throws Exception {
    GrantChain chain = f.chain(100_000_000);
    ServeRequest first = GrantFixture.request("before the snapshot", 4, 70_000);
    Presentation spent = f.present(chain, first);
    try (Steward s = open()) {
      s.serve(first, GrantFixture.payload(first), spent);
    }
    // Spent pairs of 4 KiB or more are read in place (SPEC.md §60.8), fewer are copied: these
    // spends are written as a serve's records are, without a serve (or a sync) each.
    try (FileJournal j = FileJournal.openUnsynced(dir.resolve("journal"))) {
      for (int i = 0; i < 4096 / PackedSpent.BYTES + 1; i++) {
        ServeRequest more = GrantFixture.request("spent " + i, 4, 70_000);
        JournalRecord a =
            j.append(
                new JournalEntry.Authorised(
                    f.present(chain, more), more, Optional.empty(), "ref", GrantFixture.NOW));
        j.append(new JournalEntry.Debited(a.seq(), Energy.estimated(1234), 1234, Optional.empty()));
      }
    }
    try (Steward s = open()) {
      s.snapshot();
    }
    ServeRequest next = GrantFixture.request("after the cut", 4, 70_000);
    try (Steward s = open()) {
      long before = s.spend().remainingUj(chain);
      // The latest file, which the start restored from and goes on reading.
      cutLatestSnapshot(dir);

      Throwable thrown =
          catchThrowable(() -> s.serve(next, GrantFixture.payload(next), f.present(chain, next)));
      assertThat(thrown).isInstanceOf(GrantsSuspendedException.class);
      assertThat(thrown.getMessage()).contains("snapshot").contains("restart");
      Throwable again = catchThrowable(() -> s.serve(first, GrantFixture.payload(first), spent));
      assertThat(again).isInstanceOf(GrantsSuspendedException.class);
      assertThat(s.grantsSuspended()).isPresent();
      ServeRequest ungranted = GrantFixture.request("ungranted", 3, 10_000);
      assertThat(s.serve(ungranted, GrantFixture.payload(ungranted)).receipt()).isNotNull();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(before);
    }
  }
}
