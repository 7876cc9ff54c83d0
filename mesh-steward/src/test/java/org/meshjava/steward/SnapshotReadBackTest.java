package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Snapshot;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * A steward with a file snapshot store reads the receipt ids and the transparency tree's levels
 * back from each snapshot it writes and drops their heap copies (SPEC.md §60.9), and nothing it
 * answers or saves changes for it: every receipt stays witnessed and proven, the next snapshot
 * carries every id and level, and a restart from it is the same log.
 */
class SnapshotReadBackTest {
  /** A tail chunk of one tree level: 4096 hashes of 32 bytes. */
  private static final long CHUNK_BYTES = 4096L * 32;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  private static void serve(Steward s, int n, List<ServeResult> served, MerkleTree expected)
      throws Exception {
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request("read back " + served.size(), 1, 30_000);
      ServeResult r = s.serve(req, GrantFixture.payload(req));
      served.add(r);
      expected.append(r.envelope().id().bytes());
    }
  }

  @Test
  void afterASnapshot_theTreeKeepsOnlyLaterHashesOnTheHeap_andEveryReceiptIsStillProvenAndSaved()
      throws Exception {
    Path journal = dir.resolve("steward.journal");
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    List<ServeResult> served = new ArrayList<>();
    MerkleTree expected = new MerkleTree();
    try (Steward s =
        f.steward(FileJournal.openUnsynced(journal)).snapshots(store).snapshotEvery(0).build()) {
      serve(s, 9000, served, expected);
      long before = s.logHeapBytes();

      s.snapshot();

      // Level 0's first two chunks (leaves 0..8191) and level 1's first (4096 nodes) are now
      // read from the snapshot file.
      assertThat(s.logHeapBytes())
          .as("the tree's heap after a snapshot of 9000 receipts, %d bytes before", before)
          .isLessThanOrEqualTo(before - 3 * CHUNK_BYTES);

      serve(s, 500, served, expected);
      assertThat(s.logRoot()).isEqualTo(expected.root());
      long size = s.checkpoint().map(n -> expected.size()).orElseThrow();
      for (int i = 0; i < served.size(); i++) {
        ServeResult r = served.get(i);
        assertThat(s.witness(r.receipt(), r.envelope()))
            .as("receipt %d", i)
            .isEqualTo(WitnessVerdict.HELD);
        if (i % 7 == 0 || i > 8990) {
          assertThat(s.inclusionProof(r.receipt().sequence(), size))
              .as("proof of receipt %d", i)
              .isEqualTo(expected.inclusionProof(i, size));
        }
      }
      s.snapshot();
    }

    Snapshot saved = Snapshot.open(store.latest().orElseThrow(), f.steward);
    ByteArrayOutputStream ids = new ByteArrayOutputStream();
    for (ServeResult r : served) {
      ids.write(r.envelope().id().bytes());
    }
    assertThat(saved.state().receipts().packed()).isEqualTo(ids.toByteArray());
    assertThat(saved.tree().orElseThrow().packedLevels(expected.size()))
        .isEqualTo(expected.packedLevels(expected.size()));
    try (Steward s = f.steward(FileJournal.open(journal)).snapshots(store).build()) {
      assertThat(s.logRoot()).isEqualTo(expected.root());
      assertThat(s.head().nextSequence()).isEqualTo(served.size());
    }
  }

  @Test
  void snapshotsReadBackWhileServesRun_leaveTheSameLog() throws Exception {
    Path journal = dir.resolve("steward.journal");
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    List<ServeResult> served = Collections.synchronizedList(new ArrayList<>());
    try (Steward s =
        f.steward(FileJournal.openUnsynced(journal)).snapshots(store).snapshotEvery(0).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int thread = t;
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 3000; i++) {
                    ServeRequest req =
                        GrantFixture.request("concurrent " + thread + " " + i, 1, 30_000);
                    served.add(s.serve(req, GrantFixture.payload(req)));
                  }
                  return null;
                }));
      }
      while (work.stream().anyMatch(w -> !w.isDone())) {
        s.snapshot();
      }
      for (Future<?> w : work) {
        w.get();
      }
      pool.shutdown();
      s.snapshot();

      List<ServeResult> bySequence = new ArrayList<>(served);
      bySequence.sort(Comparator.comparingLong(r -> r.receipt().sequence()));
      MerkleTree expected = new MerkleTree();
      for (ServeResult r : bySequence) {
        expected.append(r.envelope().id().bytes());
      }
      assertThat(s.logRoot()).isEqualTo(expected.root());
      long size = s.checkpoint().map(n -> expected.size()).orElseThrow();
      for (int i = 0; i < bySequence.size(); i += 11) {
        ServeResult r = bySequence.get(i);
        assertThat(s.witness(r.receipt(), r.envelope())).isEqualTo(WitnessVerdict.HELD);
        assertThat(s.inclusionProof(r.receipt().sequence(), size))
            .isEqualTo(expected.inclusionProof(i, size));
      }
    }
  }

  @Test
  void withTheLogOff_theWitnessIndexReadsTheSnapshotsIds_andHoldsEveryReceipt() throws Exception {
    Path journal = dir.resolve("steward.journal");
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    List<ServeResult> served = new ArrayList<>();
    MerkleTree unused = new MerkleTree();
    try (Steward s =
        f.steward(FileJournal.openUnsynced(journal))
            .snapshots(store)
            .snapshotEvery(0)
            .transparencyLog(false)
            .build()) {
      serve(s, 5000, served, unused);
      s.snapshot();
      serve(s, 300, served, unused);
      s.snapshot();
      serve(s, 20, served, unused);
      for (int i = 0; i < served.size(); i++) {
        ServeResult r = served.get(i);
        assertThat(s.witness(r.receipt(), r.envelope()))
            .as("receipt %d", i)
            .isEqualTo(WitnessVerdict.HELD);
      }
    }
    try (Steward s =
        f.steward(FileJournal.open(journal)).snapshots(store).transparencyLog(false).build()) {
      ServeResult r = served.getLast();
      assertThat(s.witness(r.receipt(), r.envelope())).isEqualTo(WitnessVerdict.HELD);
    }
  }
}
