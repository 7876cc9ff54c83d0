package org.meshjava.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Restart time: building a steward over a journal of {@code serves} granted serves (three records
 * each), which replays every record through the gate. The target is at least 20,000 records/s;
 * records/s = 3 x serves / the reported seconds.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
public class RestartBenchmark {
  @Param({"100000"})
  public int serves;

  private Path journal;
  private SigningKey stewardKey;

  /**
   * Serves {@code serves} granted requests on an in-memory journal and writes its lines to a file.
   */
  @Setup
  public void setup() throws Exception {
    stewardKey = SigningKey.generate();
    GrantedServes granted = new GrantedServes(Jcp.identity(stewardKey));
    PersistedAfterwards memory = new PersistedAfterwards();
    try (Steward s = steward(memory).chainHead(ChainHead.GENESIS).build()) {
      for (int i = 0; i < serves; i++) {
        granted.serve(s, "restart " + i);
      }
    }
    journal = Files.createTempDirectory("mesh-restart-bench").resolve("steward.journal");
    try (var out = Files.newOutputStream(journal)) {
      for (byte[] line : memory.inner.lines()) {
        out.write(line);
        out.write('\n');
      }
    }
  }

  private Steward.Builder steward(org.meshjava.journal.Journal j) {
    return GrantedServes.zeroWork(Steward.builder(stewardKey), j);
  }

  /**
   * An in-memory journal whose lines this benchmark writes to a file before any restart, so it is
   * durable in the sense that matters to a steward with a persistent key (§2.2); it fills the
   * journal far faster than syncing each record would.
   */
  private static final class PersistedAfterwards implements org.meshjava.journal.Journal {
    final InMemoryJournal inner = new InMemoryJournal();

    @Override
    public java.util.List<org.meshjava.journal.JournalRecord> recovered() {
      return inner.recovered();
    }

    @Override
    public Pending enqueue(org.meshjava.journal.JournalEntry entry)
        throws org.meshjava.journal.JournalException {
      return inner.enqueue(entry);
    }

    @Override
    public boolean durable() {
      return true;
    }

    @Override
    public String describe() {
      return "in-memory journal written to a file before restart";
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  /** Opens the journal and replays it into a new steward. */
  @Benchmark
  public long restart() throws Exception {
    try (Steward s = steward(FileJournal.open(journal)).build()) {
      return s.head().nextSequence();
    }
  }
}
