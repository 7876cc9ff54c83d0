package org.meshjava.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.testpg.PostgresTestServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Granted serves per second with the durable file journal, and with the PostgreSQL journal, against
 * the same steward on an in-memory journal, in one run. Run with {@code -t 1} and {@code -t 8}; the
 * target is that with 8 threads the file journal costs no more than 2x the in-memory throughput
 * (group commit). The caller's presentation signing is inside the measured call for both, so the
 * ratio is fair.
 */
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class JournalBenchmark extends ThroughputBenchmark {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  /**
   * The journal: in memory, a file, or PostgreSQL (a throwaway local server with fsync on, started
   * for the run from the binaries artifact; see mesh-bench/README.md).
   */
  @Param({"memory", "file", "postgresql"})
  public String journal;

  private PostgresTestServer postgres;

  private Steward steward;
  private GrantedServes granted;
  private Path dir;
  private final AtomicLong counter = new AtomicLong();

  /**
   * Builds the steward, its journal and a grant with a budget that cannot run out. JMH runs no
   * teardown for a setup that failed, so a failure here releases what it had started itself.
   */
  @Setup
  public void setup() throws Exception {
    try {
      // An ephemeral identity honours grants over the in-memory journal too (§2.2).
      Steward.Builder builder = Steward.ephemeral();
      granted = new GrantedServes(builder.identity());
      Journal j;
      if (journal.equals("file")) {
        dir = Files.createTempDirectory("mesh-journal-bench");
        j = FileJournal.open(dir.resolve("steward.journal"));
      } else if (journal.equals("postgresql")) {
        postgres = PostgresTestServer.start(true);
        j =
            PostgresJournal.open(
                PostgresLocation.parse(postgres.url("postgres")), builder.identity().toString());
      } else {
        j = new InMemoryJournal();
      }
      steward = GrantedServes.zeroWork(builder, j).build();
    } catch (Exception | Error e) {
      try {
        tearDown();
      } catch (Exception | Error cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * Closes the steward (if setup built it), then stops the PostgreSQL server and removes the
   * journal's directory even when that close throws, so neither outlives the run.
   */
  @TearDown
  public void tearDown() throws Exception {
    try {
      if (steward != null) {
        steward.close();
      }
    } finally {
      if (postgres != null) {
        postgres.close();
      }
      if (dir != null) {
        try (var files = Files.walk(dir)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** One granted serve: present, decide, journal, meter, debit, seal. */
  @Benchmark
  public ServeResult grantedServe() throws Exception {
    return granted.serve(steward, "bench " + counter.incrementAndGet());
  }
}
