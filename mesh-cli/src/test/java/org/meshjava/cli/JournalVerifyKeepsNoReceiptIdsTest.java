package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalReplay;

/**
 * {@code mesh journal verify} (and {@code inspect}) replay the journal streamed, and the replay
 * kept every receipt's id (32 bytes each), which grew with the journal and, with the log's tree,
 * ran a long one out of heap. It now counts the receipts and keeps no id: the line that chooses
 * that replay had no test, so going back to a replay that keeps them passed every test (the
 * streaming tests' heap holds the ids of their journal).
 */
class JournalVerifyKeepsNoReceiptIdsTest {
  @TempDir Path tmp;

  @Test
  void theStreamedReplay_countsEveryReceipt_andKeepsNoneOfTheirIds() throws Exception {
    Path file = tmp.resolve("receipts.journal");
    JournalStreamingCommandTest.writeReceipts(file, 5);
    JournalCommand.Scanned s =
        new JournalCommand.Verify()
            .scanAndReplay(
                JournalTarget.reader(new JournalTarget.File(file), Optional.empty()),
                Optional.empty(),
                (r, line) -> {},
                r -> {});
    JournalReplay.Result r = s.replayed().result();
    assertThat(s.end().count()).isEqualTo(5);
    assertThat(r.receiptsRecorded()).isEqualTo(5);
    assertThat(r.receipts().size()).as("receipt ids held").isZero();
    assertThat(r.lastSealed().orElseThrow().sequence()).isEqualTo(4);
  }
}
