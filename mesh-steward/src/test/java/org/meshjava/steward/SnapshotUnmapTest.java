package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * A steward that reads each snapshot it saves back from its folder unmaps the one it read back
 * before as soon as nothing reads it (SPEC.md §60.9): a snapshot file the store deletes gives back
 * its disk space at once, not when the garbage collector drops a mapping; and witness look-ups and
 * proofs running while it swaps one mapping for the next see neither a closed mapping nor a wrong
 * answer. After the steward closes, its keeper still answers from the last snapshot.
 */
class SnapshotUnmapTest {
  private static final Path MAPS = Path.of("/proc/self/maps");

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * The snapshot files of {@code folder} this process maps, deleted ones marked so, once for each
   * mapping of them (two mappings of one file are two lines of the map).
   */
  private static List<String> snapshotMappings(Path folder) throws Exception {
    String prefix = " " + folder + "/";
    return Files.readAllLines(MAPS).stream()
        .filter(l -> l.contains(prefix) && l.contains(".snapshot"))
        .map(l -> l.substring(l.indexOf(prefix) + 1))
        .toList();
  }

  /** The snapshot files of {@code folder} this process maps, deleted ones marked so. */
  private static List<String> mappedSnapshots(Path folder) throws Exception {
    return snapshotMappings(folder).stream().distinct().toList();
  }

  private static List<ServeResult> serve(Steward s, int n, String tag) throws Exception {
    List<ServeResult> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request("unmap " + tag + " " + i, 1, 30_000);
      out.add(s.serve(req, GrantFixture.payload(req)));
    }
    return out;
  }

  @Test
  void withTheLogOn_aReplacedSnapshotIsUnmapped_whileLookUpsAndProofsRun() throws Exception {
    replacedSnapshotsAreUnmapped(true);
  }

  @Test
  void withTheLogOff_aReplacedSnapshotIsUnmapped_whileLookUpsRun() throws Exception {
    replacedSnapshotsAreUnmapped(false);
  }

  private void replacedSnapshotsAreUnmapped(boolean log) throws Exception {
    assumeTrue(Files.isReadable(MAPS), "needs Linux's /proc/self/maps");
    Path snaps = Files.createDirectories(dir.resolve("snaps")).toRealPath();
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    List<ServeResult> early;
    Queue<String> wrong = new ConcurrentLinkedQueue<>();
    Steward closed;
    try (Steward s =
        f.steward(FileJournal.openUnsynced(dir.resolve("steward.journal")))
            .snapshots(store)
            .snapshotEvery(0)
            .transparencyLog(log)
            .build()) {
      closed = s;
      // Past 4096 ids (128 KiB), so the ids and levels the steward reads back are views of the
      // mapping, not copies.
      early = serve(s, 4500, "early");
      MerkleTree expected = new MerkleTree();
      early.forEach(r -> expected.append(r.envelope().id().bytes()));
      long size = log ? s.checkpoint().map(n -> expected.size()).orElseThrow() : 0;

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong looked = new AtomicLong();
      List<Thread> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        readers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        int i = ThreadLocalRandom.current().nextInt(early.size());
                        ServeResult r = early.get(i);
                        try {
                          if (s.witness(r.receipt(), r.envelope()) != WitnessVerdict.HELD) {
                            wrong.add("receipt " + i + " not held");
                          }
                          if (log) {
                            InclusionProof p = s.inclusionProof(r.receipt().sequence(), size);
                            if (!p.equals(expected.inclusionProof(i, size))) {
                              wrong.add("receipt " + i + ": another proof");
                            }
                          }
                        } catch (Exception | Error e) {
                          wrong.add("receipt " + i + ": " + e);
                        }
                        looked.incrementAndGet();
                      }
                    }));
      }
      try {
        for (int round = 0; round < 5; round++) {
          serve(s, 200, "round " + round);
          s.snapshot();
          // Look-ups ran across the swap: wait for a few more to finish after it.
          long after = looked.get() + 20;
          while (looked.get() < after && readers.stream().anyMatch(Thread::isAlive)) {
            Thread.onSpinWait();
          }
          assertThat(mappedSnapshots(snaps))
              .as("snapshot files mapped after snapshot %d", round + 1)
              .noneMatch(l -> l.endsWith("(deleted)"))
              .hasSizeLessThanOrEqualTo(1);
        }
      } finally {
        stop.set(true);
        for (Thread r : readers) {
          r.join();
        }
      }
      assertThat(wrong).as("wrong answers and failures").isEmpty();
      try (var files = Files.list(snaps)) {
        assertThat(files.filter(p -> p.toString().endsWith(".snapshot")).count())
            .isEqualTo(FileSnapshotStore.KEEP);
      }
      serve(s, 1, "last"); // so that the close writes a snapshot of its own
    }
    // The keeper answers after the close, from the snapshot the close wrote, as the collector maps
    // it; the one it read back before is unmapped.
    Path last;
    try (var files = Files.list(snaps)) {
      last = files.filter(p -> p.toString().endsWith(".snapshot")).sorted().toList().getLast();
    }
    assertThat(snapshotMappings(snaps))
        .as("mappings left after the close")
        .containsExactly(last.toString());
    for (int i : new int[] {0, 4321, early.size() - 1}) {
      ServeResult r = early.get(i);
      assertThat(closed.witness(r.receipt(), r.envelope()))
          .as("receipt %d", i)
          .isEqualTo(WitnessVerdict.HELD);
    }
  }

  /**
   * A snapshot taken while a receipt is journalled but not yet in the log's tree carries no tree
   * (the levels cover fewer receipts than its ids), so the keeper takes nothing from it and goes on
   * reading the levels of the snapshot read back before: that one must stay mapped. Unmapping it
   * because the later read-back "replaced" it made every witness look-up of the receipts it held
   * fail on a closed mapping.
   */
  @Test
  void aSnapshotWithoutATree_leavesTheLevelsTheLogReadsMapped() throws Exception {
    readBackShortOfTheKeeper(true);
  }

  /** The same with the log off: the witness index takes only ids that end where its own do. */
  @Test
  void withTheLogOff_aSnapshotPastTheIndex_leavesTheIdsItReadsMapped() throws Exception {
    readBackShortOfTheKeeper(false);
  }

  private void readBackShortOfTheKeeper(boolean log) throws Exception {
    assumeTrue(Files.isReadable(MAPS), "needs Linux's /proc/self/maps");
    Path snaps = Files.createDirectories(dir.resolve("snaps")).toRealPath();
    HoldsASeal journal = new HoldsASeal(FileJournal.openUnsynced(dir.resolve("steward.journal")));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Steward s =
        f.steward(journal)
            .snapshots(new FileSnapshotStore(snaps))
            .snapshotEvery(0)
            .transparencyLog(log)
            .build()) {
      // 200 receipts: their ids (6 KiB) and tree levels (12 KiB) are read in place from the
      // mapping, not copied.
      List<ServeResult> early = serve(s, 200, "levels");
      s.snapshot(); // carries the tree; the keeper reads its levels (or ids) from the mapping

      journal.arm();
      Future<List<ServeResult>> held = pool.submit(() -> serve(s, 1, "held"));
      assertThat(journal.entered.await(30, TimeUnit.SECONDS)).as("the seal reached").isTrue();
      // Receipt 200 is durable but not yet in the tree: this snapshot has no levels.
      s.snapshot();
      journal.open.countDown();
      ServeResult last = held.get(30, TimeUnit.SECONDS).getFirst();
      assertThat(last.receipt().sequence()).isEqualTo(200);

      long size = 201;
      if (log) {
        s.checkpoint().orElseThrow();
      }
      MerkleTree expected = new MerkleTree();
      early.forEach(r -> expected.append(r.envelope().id().bytes()));
      expected.append(last.envelope().id().bytes());
      for (int i = 0; i < early.size(); i++) {
        ServeResult r = early.get(i);
        assertThat(s.witness(r.receipt(), r.envelope()))
            .as("receipt %d", i)
            .isEqualTo(WitnessVerdict.HELD);
        if (log) {
          assertThat(s.inclusionProof(r.receipt().sequence(), size))
              .as("receipt %d's proof", i)
              .isEqualTo(expected.inclusionProof(i, size));
        }
      }

      // The next snapshot (past one more record, so that it is taken with the log off too) covers
      // what the keeper holds: it moves to it and lets the first go.
      serve(s, 1, "after");
      s.snapshot();
      assertThat(mappedSnapshots(snaps))
          .as("snapshot files mapped once the keeper moved on")
          .noneMatch(l -> l.endsWith("(deleted)"))
          .hasSizeLessThanOrEqualTo(1);
      ServeResult first = early.getFirst();
      assertThat(s.witness(first.receipt(), first.envelope())).isEqualTo(WitnessVerdict.HELD);
    } finally {
      journal.open.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * Once armed, holds the next {@code Sealed} record's serve after the record is durable and before
   * the steward appends it to its log, until {@link #open} is counted down.
   */
  private static final class HoldsASeal extends ForwardingJournal {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);
    private volatile boolean armed;

    HoldsASeal(Journal delegate) {
      super(delegate);
    }

    void arm() {
      armed = true;
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending p = super.enqueue(entry);
      if (armed && entry instanceof JournalEntry.Sealed) {
        armed = false;
        p.await();
        entered.countDown();
        try {
          open.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new JournalException(JournalException.Reason.IO, "interrupted", e);
        }
      }
      return p;
    }
  }
}
