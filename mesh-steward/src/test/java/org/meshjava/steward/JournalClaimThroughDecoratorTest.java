package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;

/**
 * A second steward handed a journal another steward holds, wrapped in a decorator (a metrics
 * wrapper, an application's {@link ForwardingJournal}), is refused as one handed the journal
 * itself: both would seal receipts under the same numbers into one store (§2.2). The claim was on
 * the object handed over, so a wrapper slipped past it, and a file journal's lock does not help
 * within the one process that holds it.
 */
class JournalClaimThroughDecoratorTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aDecoratedInMemoryJournal_heldByAnotherSteward_isRefusedLocked() throws Exception {
    refusedThroughAWrapper(new InMemoryJournal());
  }

  @Test
  void aDecoratedFileJournal_heldByAnotherSteward_isRefusedLocked() throws Exception {
    refusedThroughAWrapper(FileJournal.open(dir.resolve("steward.journal")));
  }

  @Test
  void aStewardBuiltThroughAWrapper_releasesTheJournalItOwns_onClose() throws Exception {
    // The claim is on the storage under the wrapper, so closing must give up that storage, not
    // the wrapper: otherwise the journal stays held for every later steward in this process.
    Journal j = new InMemoryJournal();
    refusedWhileHeld_thenFree(new ForwardingJournal(j) {}, j);
  }

  private void refusedThroughAWrapper(Journal j) throws Exception {
    refusedWhileHeld_thenFree(j, new ForwardingJournal(new ForwardingJournal(j) {}) {});
  }

  /** A steward over {@code held} keeps {@code other}, the same storage, out until it closes. */
  private void refusedWhileHeld_thenFree(Journal held, Journal other) throws Exception {
    try (Steward first = f.steward(held).build()) {
      assertThatThrownBy(() -> f.steward(other).build().close())
          .isInstanceOfSatisfying(
              StewardStartException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
      assertThat(first.head().nextSequence()).isZero();
    }
    // Released with the first steward: the other may be used now.
    try (Steward second = f.steward(other).build()) {
      assertThat(second.head().nextSequence()).isZero();
    }
  }
}
