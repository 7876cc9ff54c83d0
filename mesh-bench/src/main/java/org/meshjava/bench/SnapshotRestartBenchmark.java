package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;

/**
 * Restart time with and without a journal snapshot (issue 19), a plain timing harness rather than
 * JMH (one journal of a million serves is built once, and a full replay of it is one long shot):
 *
 * <ol>
 *   <li>serves {@code serves} granted requests (zero-work engine, fixed clock, on {@code threads}
 *       threads) into a file journal opened with {@link FileJournal#openUnsynced} (forced once, on
 *       close: building the journal is not what is measured);
 *   <li>restarts over it with no snapshot: a full replay, timed once; then writes a snapshot of the
 *       state it rebuilt ({@link Steward#snapshot()});
 *   <li>restarts from that snapshot (the journal's tail after it is empty), {@code runs} times;
 *   <li>restarts over an empty journal, {@code runs} times.
 * </ol>
 *
 * <p>Each restart is {@code FileJournal.open} + {@code Steward.Builder.build()} in this JVM, timed
 * until the steward can serve, then closed (untimed). Run: {@code java -Xmx8g -cp
 * mesh-bench/target/benchmarks.jar org.meshjava.bench.SnapshotRestartBenchmark [serves] [threads]
 * [runs]}.
 */
public final class SnapshotRestartBenchmark {
  private SnapshotRestartBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("restart-child")) {
      child(args);
      return;
    }
    int serves = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    SigningKey stewardKey = SigningKey.generate();
    SigningKey org = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    GrantChain root =
        Jcp.issueRoot(
            org,
            Jcp.identity(caller),
            Long.MAX_VALUE / 4,
            JournalBenchmark.NOW.minusSeconds(60),
            JournalBenchmark.NOW.plusSeconds(86_400));
    GrantChain chain = Jcp.delegate(caller, root, Jcp.identity(stewardKey), Long.MAX_VALUE / 4);
    Path dir = Files.createTempDirectory("mesh-snapshot-bench");
    Path journal = dir.resolve("steward.journal");

    long t0 = System.nanoTime();
    try (Steward s =
        steward(stewardKey, new Bulk(FileJournal.openUnsynced(journal)))
            .chainHead(ChainHead.GENESIS)
            .build()) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < serves; i += threads) {
                    byte[] prompt = ("restart " + i).getBytes(StandardCharsets.UTF_8);
                    ServeRequest req =
                        ServeRequest.generation(
                            ContentId.ofBytes(prompt),
                            16,
                            new ServeBounds(16, Fidelity.F1, 1_000_000));
                    s.serve(req, TokenSequence.of(new int[16]), Jcp.present(caller, chain, req));
                    if (first == 0 && i % 100_000 == 0) {
                      System.err.printf("generated %,d serves%n", i);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      pool.shutdown();
    }
    double generated = (System.nanoTime() - t0) / 1e9;
    long records;
    try (FileJournal j = FileJournal.open(journal)) {
      records = j.position().count();
    }
    System.out.printf(
        "journal: %,d granted serves, %,d records, %,d bytes, generated in %.1f s%n",
        serves, records, Files.size(journal), generated);

    FileSnapshotStore store = FileSnapshotStore.beside(journal);
    long start = System.nanoTime();
    Steward full = steward(stewardKey, FileJournal.open(journal)).snapshots(store).build();
    double fullS = (System.nanoTime() - start) / 1e9;
    JournalPosition at = full.snapshot();
    full.close();
    long snapBytes;
    try (var files = Files.list(store.directory())) {
      snapBytes = files.mapToLong(SnapshotRestartBenchmark::size).max().orElse(0);
    }
    System.out.printf(
        "restart, full replay of %,d records: %.2f s (%,.0f records/s); snapshot at %,d: %,d bytes%n",
        records, fullS, records / fullS, at.count(), snapBytes);

    double[] fromSnapshot = new double[runs];
    for (int r = 0; r < runs; r++) {
      long s0 = System.nanoTime();
      Steward s = steward(stewardKey, FileJournal.open(journal)).snapshots(store).build();
      fromSnapshot[r] = (System.nanoTime() - s0) / 1e9;
      s.close();
    }
    Path empty = dir.resolve("empty.journal");
    FileSnapshotStore emptyStore = FileSnapshotStore.beside(empty);
    double[] fromEmpty = new double[runs];
    for (int r = 0; r < runs; r++) {
      Files.deleteIfExists(empty);
      long s0 = System.nanoTime();
      Steward s =
          steward(stewardKey, FileJournal.open(empty))
              .snapshots(emptyStore)
              .chainHead(ChainHead.GENESIS)
              .build();
      fromEmpty[r] = (System.nanoTime() - s0) / 1e9;
      s.close();
    }
    double snap = min(fromSnapshot);
    double none = min(fromEmpty);
    System.out.printf(
        "restart from the snapshot: best %.3f s of %s; empty journal: best %.3f s of %s%n",
        snap, java.util.Arrays.toString(fromSnapshot), none, java.util.Arrays.toString(fromEmpty));
    System.out.printf(
        "in-process ratios: snapshot/empty %.2f; full replay/snapshot %.1f%n",
        snap / none, fullS / snap);

    // A restart as an operator sees it: a new JVM that opens the journal, builds the steward
    // (ready to serve) and exits.
    Path seed = dir.resolve("steward.seed");
    Files.write(seed, stewardKey.exportSeed());
    double[] procSnap = new double[runs];
    double[] procEmpty = new double[runs];
    for (int r = 0; r < runs; r++) {
      procSnap[r] = childRun(journal, seed, store.directory(), false);
      Files.deleteIfExists(empty);
      procEmpty[r] = childRun(empty, seed, emptyStore.directory(), true);
    }
    System.out.printf(
        "process restart from the snapshot: best %.2f s of %s; empty journal: best %.2f s of %s%n",
        min(procSnap),
        java.util.Arrays.toString(procSnap),
        min(procEmpty),
        java.util.Arrays.toString(procEmpty));
    System.out.printf(
        "process ratio: snapshot/empty %.2f (target <= 2)%n", min(procSnap) / min(procEmpty));
  }

  /** Runs one restart in a new JVM; returns its wall time in seconds. */
  private static double childRun(Path journal, Path seed, Path snapshots, boolean fresh)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-Xmx4g",
                "-cp",
                System.getProperty("java.class.path"),
                SnapshotRestartBenchmark.class.getName(),
                "restart-child",
                journal.toString(),
                seed.toString(),
                snapshots.toString(),
                Boolean.toString(fresh))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    long s0 = System.nanoTime();
    int code = pb.start().waitFor();
    double t = (System.nanoTime() - s0) / 1e9;
    if (code != 0) {
      throw new IllegalStateException("the restart child exited " + code);
    }
    return t;
  }

  /** The child: open, build (ready to serve), close, exit. */
  private static void child(String[] args) throws Exception {
    SigningKey key = SigningKey.fromSeed(Files.readAllBytes(Path.of(args[2])));
    Steward.Builder b =
        steward(key, FileJournal.open(Path.of(args[1])))
            .snapshots(new FileSnapshotStore(Path.of(args[3])));
    if (Boolean.parseBoolean(args[4])) {
      b.chainHead(ChainHead.GENESIS);
    }
    b.build().close();
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  private static double min(double[] xs) {
    double m = Double.MAX_VALUE;
    for (double x : xs) {
      m = Math.min(m, x);
    }
    return m;
  }

  private static Steward.Builder steward(SigningKey key, Journal j) {
    return Steward.builder(key)
        .meter(new EstimatorMeter())
        .clock(InstantSource.fixed(JournalBenchmark.NOW))
        .journal(j)
        .snapshotEvery(0)
        .backend(new ServeOverheadBenchmark.ZeroWorkEngine());
  }

  /**
   * An unsynced file journal that a keyed steward will serve grants over: forced once, on close,
   * before any restart reads it, which is the durability that matters here.
   */
  private record Bulk(FileJournal inner) implements Journal {
    @Override
    public List<JournalRecord> recovered() {
      return inner.recovered();
    }

    @Override
    public void read(
        JournalPosition from, Map<ContentId, org.meshjava.jcp.GrantChain> chains, RecordSink sink)
        throws JournalException {
      inner.read(from, chains, sink);
    }

    @Override
    public JournalPosition position() {
      return inner.position();
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      return inner.enqueue(entry);
    }

    @Override
    public boolean durable() {
      return true;
    }

    @Override
    public String describe() {
      return "unsynced " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
