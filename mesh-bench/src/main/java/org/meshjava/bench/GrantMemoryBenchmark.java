package org.meshjava.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;

/**
 * Live heap of the grant gate per 100 000 granted serves (issue 21 item 1), a plain timing harness
 * rather than JMH: it presents, decides and debits {@code serves} times on one gate, with decision
 * times advancing 1 ms per serve, over grants that each live {@code grantSeconds} of that time (so
 * most have expired by the end) and, for comparison, over one grant that outlives the run. It
 * reports the live heap after a full GC and the ledger's live entries at the end.
 *
 * <p>Run: {@code java -cp mesh-bench/target/benchmarks.jar org.meshjava.bench.GrantMemoryBenchmark
 * [serves] [grantSeconds]}. It measures the gate's state only: the steward also keeps 33 bytes per
 * sealed receipt for witnessing (its {@code SealedIndex}) and its journal, on disk.
 */
public final class GrantMemoryBenchmark {
  private static final Instant T0 = Instant.ofEpochSecond(1_800_000_000L);

  private GrantMemoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int serves = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int grantSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    SigningKey steward = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    for (boolean expiring : new boolean[] {true, false}) {
      Gate gate = Gate.create(Jcp.identity(steward), SpendLedger.inMemory(), Revocations.none());
      long before = liveHeap();
      long start = System.nanoTime();
      GrantChain chain = null;
      Instant chainEnd = Instant.MIN;
      for (int i = 0; i < serves; i++) {
        Instant now = T0.plusMillis(i);
        if (chain == null || (expiring && !now.isBefore(chainEnd))) {
          chainEnd = expiring ? now.plusSeconds(grantSeconds) : T0.plusSeconds(10L * serves);
          chain = Jcp.issueRoot(caller, Jcp.identity(steward), Long.MAX_VALUE / 4, T0, chainEnd);
        }
        byte[] prompt = ("memory " + i).getBytes(StandardCharsets.UTF_8);
        ServeRequest req =
            ServeRequest.generation(
                ContentId.ofBytes(prompt), 16, new ServeBounds(16, Fidelity.F1, 1_000));
        Presentation p = Jcp.present(caller, chain, req);
        gate.debit(gate.decide(p, req, Optional.empty(), now), 500);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long after = liveHeap();
      System.out.printf(
          "%s: %d granted serves in %.1f s; live heap %+d bytes (%.1f bytes/serve, %.2f MB per"
              + " 100 000); ledger live entries %d%n",
          expiring ? "grants of " + grantSeconds + " s, expiring" : "one grant, never expiring",
          serves,
          seconds,
          after - before,
          (after - before) / (double) serves,
          (after - before) * 100_000.0 / serves / 1e6,
          gate.ledger().liveEntries());
      gate = null;
      chain = null;
    }
  }

  /** The heap in use after three full collections: what is live. */
  static long liveHeap() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
