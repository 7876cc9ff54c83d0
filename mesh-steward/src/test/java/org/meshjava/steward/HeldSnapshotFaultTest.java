package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.SnapshotException;

/**
 * The gate's decision in {@code Authoriser} and {@code Snapshotter.snapshot} each end their guarded
 * region by taking a fault of a mapped snapshot's read that compiled code held back (SPEC.md §60.8,
 * "When the fault is thrown"; {@code Steward.Builder.heldFaults}, {@code deliverPending} in
 * production): a stand-in throws there what HotSpot throws for it, once, and each refuses it as the
 * snapshot cut short, inside the region, rather than standing on what the garbage read made.
 */
class HeldSnapshotFaultTest {
  private static final long BUDGET = 1_000_000;

  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** Regions ended since the count was last reset, and the one whose end throws (0: none). */
  private final AtomicInteger ends = new AtomicInteger();

  private volatile int throwAt;

  /** Or: the first region to end inside this class's code throws (null: none). */
  private volatile Class<?> throwInside;

  /**
   * The stand-in for {@code deliverPending}: the fault surfaces at the {@code throwAt}-th end, or
   * at the first end in {@code throwInside}'s code.
   */
  private void heldFault() {
    Class<?> inside = throwInside;
    if (inside != null && calledFrom(inside)) {
      throwInside = null;
      throw HeldEngineFaultTest.compiledFault();
    }
    if (ends.incrementAndGet() == throwAt) {
      throw HeldEngineFaultTest.compiledFault();
    }
  }

  private static boolean calledFrom(Class<?> inside) {
    return StackWalker.getInstance()
        .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(inside.getName())));
  }

  /** From now, the {@code nth} region to end throws the fault (the first: 1). */
  private void heldUntilEnd(int nth) {
    ends.set(0);
    throwAt = nth;
  }

  /**
   * Regression: the decision the gate made before the fault surfaced kept its reservation, so the
   * refused presentation's ceiling stayed held (990000 of 1000000 µJ left, nothing journalled).
   */
  @Test
  void aFaultHeldBackPastTheGatesDecision_suspendsGrants_withNothingHeldOrJournalled()
      throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.steward(journal).heldFaults(this::heldFault).build()) {
      ServeRequest req = GrantFixture.request("decided", 3, 10_000);
      // The gate's decision; the questions asked of the engine before it end regions of their own.
      throwInside = Authoriser.class;

      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));

      assertThat(t).isInstanceOf(GrantsSuspendedException.class);
      assertThat(t.getCause()).isInstanceOf(InternalError.class);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(journal.records()).noneMatch(r -> r.entry() instanceof JournalEntry.Authorised);
      ServeRequest next = GrantFixture.request("next", 3, 10_000);
      assertThat(
              catchThrowable(
                  () -> s.serve(next, GrantFixture.payload(next), f.present(chain, next))))
          .isInstanceOf(GrantsSuspendedException.class);
    }
  }

  @Test
  void aFaultHeldBackPastASnapshotsTaking_isRefusedAsTheSnapshotCutShort_andStopsSnapshots()
      throws Exception {
    try (Steward s =
        f.steward(FileJournal.openUnsynced(dir.resolve("steward.journal")))
            .snapshots(new KeepingSnapshotStore())
            .snapshotEvery(0)
            .heldFaults(this::heldFault)
            .build()) {
      ServeRequest req = GrantFixture.request("snapshotted", 1, 30_000);
      s.serve(req, GrantFixture.payload(req));
      heldUntilEnd(0);
      s.snapshot();
      // The last region a snapshot ends is snapshot()'s own; those before it (the read-back of the
      // snapshot just saved) warn and go on (SPEC.md §60.8).
      int regions = ends.get();
      assertThat(regions).isPositive();
      s.serve(req, GrantFixture.payload(req));
      heldUntilEnd(regions);

      Throwable t = catchThrowable(s::snapshot);

      assertThat(t)
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO));
      assertThat(t.getMessage()).contains("cut short on disk");
      assertThat(catchThrowable(s::snapshot)).isInstanceOf(SnapshotException.class);
    }
  }
}
