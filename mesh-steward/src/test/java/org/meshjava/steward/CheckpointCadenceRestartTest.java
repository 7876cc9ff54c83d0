package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.tlog.Checkpoint;

/**
 * The checkpoint cadence ({@code checkpointEvery}, SPEC.md §65) goes on across a restart from where
 * the journal's latest checkpoint left it: a steward restarted after a checkpoint off the cadence
 * (the closing one) signs its next cadence checkpoint at the next multiple, not on its first seal,
 * and not never.
 */
class CheckpointCadenceRestartTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aRestartedSteward_signsItsNextCadenceCheckpointAtTheNextMultiple() throws Exception {
    Path path = dir.resolve("steward.journal");
    CheckpointSizes first = new CheckpointSizes(FileJournal.open(path));
    try (Steward s = f.steward(first).checkpointEvery(4).build()) {
      serve(s, 6, "before");
    }
    assertThat(first.sizes).as("the cadence's, then the closing one").containsExactly(4L, 6L);

    CheckpointSizes second = new CheckpointSizes(FileJournal.open(path));
    try (Steward s = f.steward(second).checkpointEvery(4).build()) {
      serve(s, 1, "after");
      assertThat(second.sizes).as("at 7: 4 is signed already and 8 is not reached").isEmpty();
      serve(s, 1, "after again");
      assertThat(second.sizes).as("at 8").containsExactly(8L);
      serve(s, 3, "past");
      assertThat(second.sizes).as("at 11").containsExactly(8L);
    }
  }

  /**
   * A restart with another cadence counts from the latest checkpoint too: after one at 6, a cadence
   * of 5 has 5 signed already and signs at 10.
   */
  @Test
  void aRestartWithAnotherCadence_countsFromTheLatestCheckpoint() throws Exception {
    Path path = dir.resolve("steward.journal");
    try (Steward s = f.steward(FileJournal.open(path)).checkpointEvery(4).build()) {
      serve(s, 6, "before");
    }
    CheckpointSizes second = new CheckpointSizes(FileJournal.open(path));
    try (Steward s = f.steward(second).checkpointEvery(5).build()) {
      serve(s, 3, "after");
      assertThat(second.sizes).as("at 9").isEmpty();
      serve(s, 1, "at ten");
      assertThat(second.sizes).containsExactly(10L);
    }
  }

  private static void serve(Steward s, int n, String tag) throws Exception {
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request(tag + " " + i, 3, 50_000);
      s.serve(req, GrantFixture.payload(req));
    }
  }

  /** Notes the tree size of each checkpoint journalled through it. */
  private static final class CheckpointSizes extends ForwardingJournal {
    final List<Long> sizes = new CopyOnWriteArrayList<>();

    CheckpointSizes(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending p = super.enqueue(entry);
      if (entry instanceof JournalEntry.Checkpoint c) {
        try {
          sizes.add(Checkpoint.parse(c.note().text()).size());
        } catch (org.meshjava.receipt.tlog.LogException e) {
          throw new AssertionError(e);
        }
      }
      return p;
    }
  }
}
