package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;

/**
 * A snapshot that could not be handed to the snapshotter's thread is tried again at the next seal.
 */
class SnapshotQueueFailureTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** A worker whose first {@code execute} throws, as one does when no thread can be made for it. */
  static final class FailsOnce extends ScheduledThreadPoolExecutor {
    final AtomicInteger executes = new AtomicInteger();

    FailsOnce() {
      super(1, Thread.ofPlatform().daemon().factory());
    }

    @Override
    public void execute(Runnable command) {
      if (executes.incrementAndGet() == 1) {
        throw new IllegalStateException("no thread for the snapshot");
      }
      super.execute(command);
    }
  }

  /**
   * Regression: the worker's {@code execute} throwing anything but a rejection left the snapshot
   * marked queued, so none was queued again until the steward restarted.
   */
  @Test
  void aSnapshotTheWorkerCouldNotTake_isQueuedAgainAtTheNextSeal() throws Exception {
    FailsOnce worker = new FailsOnce();
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    try (Steward s =
        f.steward(FileJournal.openUnsynced(dir.resolve("steward.journal")))
            .snapshots(store)
            .snapshotEvery(1)
            .snapshotWorker(() -> worker)
            .build()) {
      for (int i = 0; i < 2; i++) {
        ServeRequest req = GrantFixture.request("snapshot " + i, 1, 30_000);
        assertThat(s.serve(req, GrantFixture.payload(req)).receipt().sequence()).isEqualTo(i);
      }
      assertThat(worker.executes).as("the second seal queues a snapshot again").hasValue(2);
    }
    assertThat(store.saved).isNotEmpty();
  }
}
