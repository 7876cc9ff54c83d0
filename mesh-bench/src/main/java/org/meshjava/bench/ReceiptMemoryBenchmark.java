package org.meshjava.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.steward.Steward;

/**
 * Live heap a steward keeps per sealed receipt (SPEC.md §60.9), a plain harness rather than JMH: a
 * steward with the zero-work engine on a file journal (appends not forced) with snapshots beside
 * it, as {@code mesh serve} runs, seals {@code receipts} ungranted receipts; the live heap after a
 * full GC is read before and after, once more after the snapshotter has caught up ({@link
 * Steward#snapshot()}), and once more after one look-up by envelope id (which builds the log's leaf
 * lookup). Run with the log on and off.
 *
 * <p>Run: {@code java -cp mesh-bench/target/benchmarks.jar
 * org.meshjava.bench.ReceiptMemoryBenchmark [receipts] [dir]}.
 */
public final class ReceiptMemoryBenchmark {
  private ReceiptMemoryBenchmark() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int receipts = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
    Path root =
        args.length > 1
            ? Files.createDirectories(Path.of(args[1]))
            : Files.createTempDirectory("receipt-memory");
    BenchServe serve = BenchServe.of("memory prompt");
    for (boolean log : new boolean[] {true, false}) {
      Path journal = root.resolve((log ? "on" : "off") + ".jsonl");
      try (Steward s =
          ServeOverheadBenchmark.ZeroWorkEngine.steward(SigningKey.generate())
              .journal(FileJournal.openUnsynced(journal))
              .snapshots(FileSnapshotStore.beside(journal))
              .transparencyLog(log)
              .build()) {
        for (int i = 0; i < 10_000; i++) {
          s.serve(serve.request(), serve.prompt());
        }
        s.snapshot();
        long before = GrantMemoryBenchmark.liveHeap();
        long start = System.nanoTime();
        for (int i = 0; i < receipts; i++) {
          s.serve(serve.request(), serve.prompt());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long served = GrantMemoryBenchmark.liveHeap();
        s.snapshot();
        long snapshotted = GrantMemoryBenchmark.liveHeap();
        s.logSequenceOf(ContentId.ofBytes(new byte[] {1}));
        long looked = GrantMemoryBenchmark.liveHeap();
        System.out.printf(
            "log %s: %d receipts in %.1f s; live heap per receipt: %.1f B after serving, %.1f B"
                + " with the snapshotter caught up, %.1f B after a look-up by envelope id%n",
            log ? "on" : "off",
            receipts,
            seconds,
            (served - before) / (double) receipts,
            (snapshotted - before) / (double) receipts,
            (looked - before) / (double) receipts);
      }
    }
  }
}
