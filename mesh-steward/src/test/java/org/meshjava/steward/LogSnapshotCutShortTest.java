package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * A steward restarted from a snapshot file reads its transparency log's tree levels in place, from
 * the file mapped into memory (SPEC.md §60.8, "Reading in place"). Cut short under the running
 * steward ({@code cp} over it, {@code truncate}), the next read of a level there faults: every log
 * answer must then be a typed refusal ({@link LogException.Reason#UNREADABLE}), never a raw {@link
 * InternalError}; a serve still gets its receipt (it is journalled, and a restart puts it in the
 * tree); no answer is read from a tree an append was cut in; grants are not suspended (the journal
 * is whole); and the close completes.
 */
class LogSnapshotCutShortTest {
  /**
   * Receipts before the snapshot: their levels must be at least {@link
   * CanonicalCbor#IN_PLACE_BYTES} to be read in place rather than copied (64 receipts make 4064
   * bytes, 65 make 4096); an odd count makes the next append read its sibling from the mapping.
   */
  static final int RECEIPTS = 71;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Steward open() throws Exception {
    return SnapshotCutShortWhileServingTest.open(f, dir);
  }

  static ContentId envelope(int i) {
    return ContentId.ofBytes(new byte[] {(byte) i, (byte) (i >> 8), 7});
  }

  /**
   * Regression: inclusionProof, consistencyProof, logSequenceOf and witnessed threw
   * "java.lang.InternalError: a fault occurred in an unsafe memory access operation", and the serve
   * whose append met the cut threw it after its debit, the tree left half updated.
   */
  @Test
  void aSnapshotCutShortUnderTheLog_refusesEveryLogAnswer_typed_andServesOn() throws Exception {
    assertThat(MerkleTree.packedLength(RECEIPTS))
        .isGreaterThanOrEqualTo(CanonicalCbor.IN_PLACE_BYTES);
    // Receipts written as a serve's records are, without a serve (or a sync) each.
    try (FileJournal j = FileJournal.openUnsynced(dir.resolve("journal"))) {
      for (int i = 0; i < RECEIPTS; i++) {
        j.append(new JournalEntry.Sealed(i, envelope(i)));
      }
    }
    try (Steward s = open()) {
      s.snapshot();
    }
    ServeResult served;
    try (Steward s = open()) {
      assertThat(s.inclusionProof(3, RECEIPTS).treeSize()).isEqualTo(RECEIPTS);
      cutLatestSnapshot();

      assertUnreadable(() -> s.inclusionProof(3, RECEIPTS));
      assertUnreadable(() -> s.inclusionProof(envelope(3), RECEIPTS));
      assertUnreadable(() -> s.consistencyProof(1, RECEIPTS));
      assertUnreadable(() -> s.logSequenceOf(envelope(3)));

      ServeRequest r = GrantFixture.request("after the cut", 3, 10_000);
      served = s.serve(r, GrantFixture.payload(r));
      assertThat(served.receipt().sequence()).isEqualTo(RECEIPTS);
      // The next one too: its append must not meet a tree the first one's was cut in.
      ServeRequest again = GrantFixture.request("after the cut, again", 3, 10_000);
      assertThat(s.serve(again, GrantFixture.payload(again)).receipt().sequence())
          .isEqualTo(RECEIPTS + 1);

      assertUnreadable(() -> s.witnessed(served.receipt(), served.envelope()));
      assertUnreadable(s::checkpoint);
      assertUnreadable(() -> s.inclusionProof(RECEIPTS, RECEIPTS + 1));
      assertThat(s.grantsSuspended()).isEmpty();
      assertThatCode(s::close).doesNotThrowAnyException();
    }
    // Removed, the cut file is no longer restored from: the journal is replayed, and the receipts
    // sealed after the cut are in the tree.
    try (Stream<Path> listed = Files.list(dir.resolve("snaps"))) {
      for (Path p : listed.toList()) {
        Files.delete(p);
      }
    }
    try (Steward s = open()) {
      assertThat(s.witnessed(served.receipt(), served.envelope()).verdict())
          .isEqualTo(WitnessVerdict.HELD);
      assertThat(s.inclusionProof(RECEIPTS + 1, RECEIPTS + 2).treeSize()).isEqualTo(RECEIPTS + 2);
    }
  }

  /**
   * The same cut under a steward that saved the snapshot itself and reads its tree's levels from
   * the file it mapped back (SPEC.md §60.9), with no restart between.
   */
  @Test
  void aSnapshotCutShortAfterTheStewardReadItBack_refusesTheLog_typed() throws Exception {
    try (FileJournal j = FileJournal.openUnsynced(dir.resolve("journal"))) {
      for (int i = 0; i < RECEIPTS; i++) {
        j.append(new JournalEntry.Sealed(i, envelope(i)));
      }
    }
    try (Steward s = open()) {
      s.snapshot();
      cutLatestSnapshot();

      assertUnreadable(() -> s.inclusionProof(3, RECEIPTS));
      ServeRequest r = GrantFixture.request("after the cut", 3, 10_000);
      assertThat(s.serve(r, GrantFixture.payload(r)).receipt().sequence()).isEqualTo(RECEIPTS);
      assertUnreadable(s::checkpoint);
      assertThatCode(s::close).doesNotThrowAnyException();
    }
  }

  /**
   * Regression: a close whose log could no longer be read warned that the latest snapshot "does not
   * match the transparency log", sending the operator to look for a forked history; it says the log
   * cannot be read instead, naming the reason. The whole file is put back before the close, so that
   * the close reads the snapshot and only the log refuses it.
   */
  @Test
  void aCloseWhoseLogIsUnreadable_saysSo_notThatTheSnapshotDoesNotMatch() throws Exception {
    try (FileJournal j = FileJournal.openUnsynced(dir.resolve("journal"))) {
      for (int i = 0; i < RECEIPTS; i++) {
        j.append(new JournalEntry.Sealed(i, envelope(i)));
      }
    }
    Steward s = open();
    String log;
    try {
      s.snapshot();
      Path file;
      try (Stream<Path> listed = Files.list(dir.resolve("snaps"))) {
        file = listed.filter(p -> p.toString().endsWith(".snapshot")).sorted().toList().getLast();
      }
      byte[] whole = Files.readAllBytes(file);
      cutLatestSnapshot();
      assertUnreadable(() -> s.inclusionProof(3, RECEIPTS));
      Files.write(file, whole); // in place: the mapping reads the whole file again
    } finally {
      log = SnapshotterFailureWordsTest.logOf(s::close);
    }
    assertThat(log)
        .contains("the transparency log did not take the latest journal snapshot on close")
        .contains("UNREADABLE")
        .contains("cut short")
        .doesNotContain("does not match");
  }

  interface LogCall {
    Object call() throws Exception;
  }

  static void assertUnreadable(LogCall call) {
    Throwable thrown = catchThrowable(call::call);
    assertThat(thrown).isInstanceOf(LogException.class);
    LogException e = (LogException) thrown;
    assertThat(e.reason()).isEqualTo(LogException.Reason.UNREADABLE);
    assertThat(e.getMessage()).contains("snapshot").contains("restart");
  }

  void cutLatestSnapshot() throws Exception {
    SnapshotCutShortWhileServingTest.cutLatestSnapshot(dir);
  }
}
