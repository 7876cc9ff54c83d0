package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.receipt.tlog.LogException;

/**
 * The keeper of a steward whose log is off reads a snapshot's ids in place from its mapped file
 * (SPEC.md §60.8), for a witness's look-up and to check the next snapshot's ids before taking them.
 * That file cut short, each is refused {@code UNREADABLE}, never a raw {@link InternalError}: what
 * {@link WitnessIndexCutShortTest} pins through a steward, here for the paths a steward reaches
 * only under a race or a JIT-compiled look-up.
 */
class OffKeeperCutShortTest {
  /** Ids in the mapped file: 32 KiB, eight pages. */
  static final int IDS = 1024;

  @TempDir Path tmp;

  /**
   * Pins {@code MappedReadFault.deliverPending} at the end of the look-up's guarded region. Code
   * the JIT compiled throws the fault only at the thread's next safepoint poll (SPEC.md §60.8,
   * "When the fault is thrown"); with the read inlined into {@link LogKeeper.Off#holds}, that poll
   * is its return, past its {@code catch}: without the call the look-up answered false from the
   * garbage the skipped read left and the fault was thrown past it, raw ("[round 0: answered false
   * from a cut file]"). Each round makes the look-up hot over a whole file, then cuts the file.
   */
  @Test
  void aFaultCompiledCodeHoldsBack_isRefusedUnreadable_insideTheLookUp() throws Exception {
    ContentId zero = ContentId.fromDigest(new byte[ContentId.LENGTH]);
    for (int round = 0; round < 3; round++) {
      Path file = Files.write(tmp.resolve("ids-" + round), new byte[IDS * ContentId.LENGTH]);
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        LogKeeper.Off keeper = new LogKeeper.Off(new SealedIndex(ReceiptIds.over(0, mapped), IDS));
        int held = 0;
        for (int i = 0; i < 100_000; i++) {
          if (keeper.holds((i * 31) % IDS, zero)) {
            held++;
          }
        }
        assertThat(held).isEqualTo(100_000);
        ch.truncate(0);
        Throwable thrown = null;
        boolean answered = false;
        try {
          answered = keeper.holds(IDS - 1, zero);
          // A fault held back past the look-up is thrown at the next poll: a loop's is one.
          for (int i = 0; i < 1_000; i++) {
            Thread.onSpinWait();
          }
        } catch (LogException | InternalError e) {
          thrown = e;
        }
        assertThat(thrown)
            .as("round %s: answered %s from a cut file", round, answered)
            .isInstanceOf(LogException.class);
        assertThat(((LogException) thrown).reason()).isEqualTo(LogException.Reason.UNREADABLE);
      }
    }
  }

  /**
   * Regression: taking a new snapshot's ids compares their last with the one the index holds, read
   * from the earlier snapshot's mapped file; that file cut short, the comparison threw
   * "java.lang.InternalError: a fault occurred in an unsafe memory access operation" out of the
   * keeper, and on a steward's close out of {@code Steward.close}, before the journal was closed.
   */
  @Test
  void takingNewIdsOverAFileCutShort_isRefusedUnreadable_andTakesNothing() throws Exception {
    Path file = Files.write(tmp.resolve("ids"), new byte[IDS * ContentId.LENGTH]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
      LogKeeper.Off keeper = new LogKeeper.Off(new SealedIndex(ReceiptIds.over(0, mapped), IDS));
      ReceiptIds next = ReceiptIds.of(0, new byte[IDS * ContentId.LENGTH]);
      ch.truncate(0);

      Throwable thrown = catchThrowable(() -> keeper.adopt(next, Optional.empty()));
      assertThat(thrown).isInstanceOf(LogException.class);
      assertThat(((LogException) thrown).reason()).isEqualTo(LogException.Reason.UNREADABLE);
      assertThat(thrown.getMessage()).contains("cut short").contains("restart");
      // Marked unreadable: the next look-up, and the next adoption, are refused before any read.
      LogSnapshotCutShortTest.assertUnreadable(
          () -> keeper.holds(0, ContentId.fromDigest(new byte[ContentId.LENGTH])));
      LogSnapshotCutShortTest.assertUnreadable(() -> keeper.adopt(next, Optional.empty()));
    }
  }
}
