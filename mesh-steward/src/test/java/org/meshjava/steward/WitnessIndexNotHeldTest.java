package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;

/**
 * With the transparency log off, the witness's verdict is read from the index of envelope ids
 * (SPEC.md §60.8): a receipt this steward signed that its journal does not hold is {@code
 * NOT_HELD}, and grants are suspended, as with the log on. Only the held case and the unreadable
 * index had tests, so an index answering "held" for everything went unseen.
 */
class WitnessIndexNotHeldTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void withTheLogOff_aReceiptTheJournalDoesNotHold_isNotHeld_andSuspendsGrants() throws Exception {
    ServeResult served;
    try (Steward s =
        f.steward(FileJournal.open(dir.resolve("kept"))).transparencyLog(false).build()) {
      ServeRequest r = GrantFixture.request("sealed into the journal later lost", 3, 10_000);
      served = s.serve(r, GrantFixture.payload(r));
      assertThat(s.witnessed(served.receipt(), served.envelope()).verdict())
          .isEqualTo(WitnessVerdict.HELD);
    }
    // The same steward (its key) over a journal without that receipt: records cut from it.
    try (Steward s =
        f.steward(FileJournal.open(dir.resolve("lost"))).transparencyLog(false).build()) {
      assertThat(s.witnessed(served.receipt(), served.envelope()).verdict())
          .isEqualTo(WitnessVerdict.NOT_HELD);
      assertThat(s.grantsSuspended()).isPresent();
    }
  }
}
