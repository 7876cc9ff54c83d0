package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A checkpoint whose journal write failed after its record reached storage (a sync that failed once
 * the bytes were written, a remote store that applied the write and lost the answer): the steward
 * does not publish it, yet the journal holds it. Whatever is journalled after it must keep the
 * journal one that a restart and {@code mesh journal verify} take: the same checkpoint written
 * again, and never a smaller one after it.
 */
class CheckpointStoredThenFailedTest {
  private final GrantFixture f = new GrantFixture();
  private final SigningKey witness = SigningKey.generate();
  private final NoteVerifierKey witnessKey =
      new NoteVerifierKey("witness.example", witness.verificationKey());
  @TempDir Path dir;

  private static final int SERVES = 40;

  /**
   * Regression: a witness that cosigned the published checkpoint (size 2) after a size-4 one was
   * stored but not published had its cosigned size-2 note journalled after the size-4 record; a
   * restart then refused the journal ("checkpoint of size 2 after one of size 4"), and so did
   * verify.
   */
  @Test
  void aCosignatureOfTheOlderCheckpoint_afterANewerOneWasStored_neverBreaksTheJournal()
      throws Exception {
    SignedNote older;
    LogException refused = null;
    try (StoresThenFails j = new StoresThenFails(FileJournal.open(dir.resolve("j")));
        Steward s = f.steward(j).witness(witnessKey).build()) {
      serve(s, 2, "a");
      older = s.checkpoint().orElseThrow();
      serve(s, 2, "b");
      j.failNextCheckpoint = true;
      assertThatThrownBy(s::checkpoint)
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertThat(j.stored).as("the failed checkpoint reached storage").isEqualTo(1);

      SignedNote line = SignedNote.sign(older.text(), witnessKey.name(), witness);
      try {
        s.cosign(older.with(line.signatures().get(0)));
      } catch (LogException e) {
        refused = e;
      }
      SignedNote latest = s.checkpoint().orElseThrow();
      assertThat(sizeOf(latest)).isEqualTo(4);
      SignedNote cosigned =
          s.cosign(
              latest.with(
                  SignedNote.sign(latest.text(), witnessKey.name(), witness).signatures().get(0)));
      cosigned.verify(witnessKey);
    }
    assertThat(checkpointSizes()).isSorted().contains(2L, 4L);
    assertJournalVerifies();
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).witness(witnessKey).build()) {
      assertThat(sizeOf(s.checkpoint().orElseThrow())).isEqualTo(4);
    }
    // The witness was told to cosign the latest instead, which was journalled again first.
    assertThat(refused)
        .isNotNull()
        .satisfies(e -> assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH));
  }

  /**
   * The same checkpoint journalled twice (the stored-then-failed one, then again by the next
   * checkpoint asked for) is taken by a restart and by verify; no journal record is lost.
   */
  @Test
  void theSameCheckpointJournalledTwice_isTakenByARestartAndByVerify() throws Exception {
    try (StoresThenFails j = new StoresThenFails(FileJournal.open(dir.resolve("j")));
        Steward s = f.steward(j).build()) {
      serve(s, 3, "a");
      j.failNextCheckpoint = true;
      assertThatThrownBy(s::checkpoint).isInstanceOf(ServeException.class);
      assertThat(sizeOf(s.checkpoint().orElseThrow())).isEqualTo(3);
    }
    assertThat(checkpointSizes()).containsExactly(3L, 3L);
    assertJournalVerifies();
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).build()) {
      assertThat(sizeOf(s.checkpoint().orElseThrow())).isEqualTo(3);
      serve(s, 1, "c");
      assertThat(sizeOf(s.checkpoint().orElseThrow())).isEqualTo(4);
    }
  }

  /**
   * Three threads at once: serves signing cadence checkpoints (every 2 receipts), a caller asking
   * for checkpoints by hand, now and then making the next one's write fail after its record was
   * stored and then cosigning the checkpoint it saw before that, and a witness cosigning whatever
   * checkpoint it last saw, often an older one. Whichever order they meet the log keeper's lock in,
   * the journal's checkpoints stay in size order, it verifies, and a restart takes it.
   */
  @Test
  void cadenceManualAndCosign_fromThreeThreads_keepTheJournalInOrder() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (StoresThenFails j = new StoresThenFails(FileJournal.open(dir.resolve("j")));
        Steward s = f.steward(j).witness(witnessKey).checkpointEvery(2).build()) {
      Future<?> serving =
          pool.submit(
              () -> {
                for (int i = 0; i < SERVES; i++) {
                  ServeRequest req = GrantFixture.request("race " + i, 3, 50_000);
                  s.serve(req, GrantFixture.payload(req));
                }
                return null;
              });
      Future<?> manual =
          pool.submit(
              () -> {
                SignedNote lastSeen = null;
                for (int i = 0; !serving.isDone(); i++) {
                  j.failNextCheckpoint = i % 3 == 0;
                  try {
                    lastSeen = s.checkpoint().orElse(lastSeen);
                  } catch (ServeException madeToFail) {
                    // A witness still holding the checkpoint published before it cosigns that one
                    // now, racing the serves' cadence to the log keeper.
                    if (lastSeen != null) {
                      cosignQuietly(s, lastSeen);
                    }
                  }
                }
                return null;
              });
      Future<?> witnessing =
          pool.submit(
              () -> {
                while (!serving.isDone()) {
                  SignedNote seen;
                  try {
                    seen = s.checkpoint().orElse(null);
                  } catch (ServeException failed) {
                    continue;
                  }
                  if (seen == null) {
                    continue;
                  }
                  cosignQuietly(s, seen);
                }
                return null;
              });
      serving.get(5, TimeUnit.MINUTES);
      manual.get(1, TimeUnit.MINUTES);
      witnessing.get(1, TimeUnit.MINUTES);
      j.failNextCheckpoint = false;
      SignedNote latest = s.checkpoint().orElseThrow();
      s.cosign(withWitnessLine(latest)).verify(witnessKey);
    } finally {
      pool.shutdownNow();
    }
    assertThat(checkpointSizes()).isSorted().contains((long) SERVES);
    assertJournalVerifies();
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).witness(witnessKey).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(SERVES);
    }
  }

  /**
   * Cosigns {@code seen} as the witness; a refusal (not the latest, a failed write) is expected.
   */
  private void cosignQuietly(Steward s, SignedNote seen) {
    try {
      s.cosign(withWitnessLine(seen));
    } catch (LogException | ServeException refused) {
      // an older checkpoint than the latest, or one whose write was made to fail
    }
  }

  private SignedNote withWitnessLine(SignedNote note) {
    return note.with(SignedNote.sign(note.text(), witnessKey.name(), witness).signatures().get(0));
  }

  private List<JournalRecord> records() throws Exception {
    try (FileJournal j = FileJournal.open(dir.resolve("j"))) {
      return j.recovered();
    }
  }

  private List<Long> checkpointSizes() throws Exception {
    List<Long> sizes = new ArrayList<>();
    for (JournalRecord r : records()) {
      if (r.entry() instanceof JournalEntry.Checkpoint c) {
        sizes.add(sizeOf(c.note()));
      }
    }
    return sizes;
  }

  /** What {@code mesh journal verify} runs over the log's records. */
  private void assertJournalVerifies() throws Exception {
    LogReplay.Result result = LogReplay.replay(records(), Checkpoint.logKey(f.steward), 0);
    assertThat(result.checkpoints()).isPositive();
  }

  private static void serve(Steward s, int n, String tag) throws Exception {
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request(tag + " " + i, 3, 50_000);
      s.serve(req, GrantFixture.payload(req));
    }
  }

  private static long sizeOf(SignedNote note) throws Exception {
    return Checkpoint.parse(note.text()).size();
  }

  /**
   * Once told, writes the next checkpoint record through to storage, then answers its wait with a
   * failure, as a sync that failed after the bytes were written.
   */
  static final class StoresThenFails extends ForwardingJournal {
    volatile boolean failNextCheckpoint;
    volatile int stored;

    StoresThenFails(Journal delegate) {
      super(delegate);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending p = super.enqueue(entry);
      if (!(entry instanceof JournalEntry.Checkpoint) || !failNextCheckpoint) {
        return p;
      }
      failNextCheckpoint = false;
      p.await();
      stored++;
      return Pendings.awaitedBy(
          p,
          () -> {
            throw new JournalException(
                JournalException.Reason.IO, "sync failed after the write", null);
          });
    }
  }
}
