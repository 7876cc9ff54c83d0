package org.meshjava.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.internal.TransparencyLog;

/**
 * A plain timing harness (issue 16): on restart the steward reads its journal, replays it through
 * the gate, and rebuilds the transparency log's tree from it, checking every journalled checkpoint.
 * This times the three over one journal of {@code receipts} ungranted receipts with a checkpoint
 * every 1024 (the default cadence), the journal where replay is cheapest relative to the tree,
 * since ungranted records carry no grant or envelope to check. Target: rebuild no slower than
 * replay.
 *
 * <p>Usage: {@code TreeRebuildTiming [receipts] [rounds]}, defaults 1 000 000 and 3; prints each
 * round and the best of each step, in wall time and in this thread's CPU time (every step runs on
 * this thread; CPU time is what stays readable on a shared, loaded machine).
 */
public final class TreeRebuildTiming {
  private TreeRebuildTiming() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int receipts = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    SigningKey key = SigningKey.generate();
    DidKey steward = DidKey.of(key.verificationKey());
    Path file = write(key, receipts);
    long[] best = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
    long[] bestCpu = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int round = 0; round < rounds; round++) {
      long[] wall = new long[4];
      long[] cpu = new long[4];
      wall[0] = System.nanoTime();
      cpu[0] = threads.getCurrentThreadCpuTime();
      List<JournalRecord> records = JournalFile.read(file).records();
      wall[1] = System.nanoTime();
      cpu[1] = threads.getCurrentThreadCpuTime();
      JournalReplay.replay(
          records, Gate.create(steward, SpendLedger.inMemory(), Revocations.none()));
      wall[2] = System.nanoTime();
      cpu[2] = threads.getCurrentThreadCpuTime();
      LogReplay.Result tree = LogReplay.replay(records, Checkpoint.logKey(steward), 0);
      wall[3] = System.nanoTime();
      cpu[3] = threads.getCurrentThreadCpuTime();
      if (tree.tree().size() != receipts) {
        throw new IllegalStateException("rebuilt " + tree.tree().size() + " leaves");
      }
      System.out.printf(
          "round %d: %d records (%d checkpoints), wall/cpu ms: read %d/%d, replay %d/%d,"
              + " tree rebuild %d/%d%n",
          round,
          records.size(),
          tree.checkpoints(),
          ms(wall[1] - wall[0]),
          ms(cpu[1] - cpu[0]),
          ms(wall[2] - wall[1]),
          ms(cpu[2] - cpu[1]),
          ms(wall[3] - wall[2]),
          ms(cpu[3] - cpu[2]));
      for (int step = 0; step < 3; step++) {
        best[step] = Math.min(best[step], wall[step + 1] - wall[step]);
        bestCpu[step] = Math.min(bestCpu[step], cpu[step + 1] - cpu[step]);
      }
    }
    for (long[] b : new long[][] {best, bestCpu}) {
      System.out.printf(
          "best %s: read %d ms, replay %d ms, rebuild %d ms; rebuild / (read + replay) = %.2f,"
              + " rebuild / replay = %.2f%n",
          b == best ? "wall" : "cpu",
          ms(b[0]),
          ms(b[1]),
          ms(b[2]),
          (double) b[2] / (b[0] + b[1]),
          (double) b[2] / b[1]);
    }
    Files.delete(file);
    Files.delete(file.getParent());
  }

  /** Writes the journal: receipts with random envelope ids, a signed checkpoint every 1024. */
  private static Path write(SigningKey key, int receipts) throws Exception {
    InMemoryJournal journal = new InMemoryJournal();
    TransparencyLog log = new TransparencyLog(key, 0, Set.of());
    SplittableRandom random = new SplittableRandom(16);
    byte[] id = new byte[ContentId.LENGTH];
    for (int i = 0; i < receipts; i++) {
      random.nextBytes(id);
      ContentId envelope = ContentId.fromDigest(id);
      journal.append(new JournalEntry.Sealed(i, envelope));
      log.append(i, envelope);
      if ((i + 1) % 1024 == 0 || i + 1 == receipts) {
        var note = log.signNext().orElseThrow();
        journal.append(new JournalEntry.Checkpoint(note, JournalSeal.by(key)));
        log.publish(note);
      }
    }
    Path file = Files.createTempDirectory("mesh-tree-rebuild").resolve("steward.journal");
    try (var out = Files.newOutputStream(file)) {
      for (byte[] line : journal.lines()) {
        out.write(line);
        out.write('\n');
      }
    }
    return file;
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }
}
