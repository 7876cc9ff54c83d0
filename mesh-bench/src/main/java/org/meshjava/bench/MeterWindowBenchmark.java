package org.meshjava.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.energy.CounterMeter;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.energy.LivenessPolicy;
import org.meshjava.energy.MeterDiscovery;
import org.meshjava.energy.MeterWindow;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of metering one serve: opening and closing a window, for each meter, against a bare
 * {@link System#nanoTime()} pair measured in the same run. Target (issue 6): a window costs under
 * 1% of a 10 ms serve, i.e. under 100 µs.
 *
 * <p>RAPL runs on a fake powercap tree in a temp dir whose {@code energy_uj} a background thread
 * advances every millisecond, so discovery proves it live and the window takes the real path: two
 * sysfs reads, the ledger's books, and grading. Real sysfs reads of {@code intel-rapl} go through
 * the kernel's MSR read and can cost more; this benchmark does not measure them.
 *
 * <p>{@code openBeside} windows stay open on the counter through the run, as under many concurrent
 * serves: each read ages the windows open on its counter, and that must not cost more the more
 * there are (session 36: 500 open made a window cost about 27 times as much CPU). Only the RAPL
 * window's state has that parameter, so the estimator and the floor run once each, not once per
 * value.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    // The shaded benchmark jar runs on the class path, where native access is ALL-UNNAMED.
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class MeterWindowBenchmark {
  private static final Set<EnergyDomain> CPU = Set.of(EnergyDomain.cpuPackage(0));

  /** The estimator meter: no counters. */
  @State(Scope.Benchmark)
  public static class Estimator {
    final EnergyMeter meter = new EstimatorMeter();
  }

  /**
   * A {@link CounterMeter} over a fake powercap tree whose one zone a background thread advances
   * every millisecond, with {@link #openBeside} windows left open on it.
   */
  @State(Scope.Benchmark)
  public static class FakeRapl {
    private Path tree;
    private Thread writer;
    private final AtomicBoolean stop = new AtomicBoolean();
    CounterMeter meter;
    private final List<MeterWindow> beside = new ArrayList<>();

    /** Windows left open on the RAPL counter beside the measured one. */
    @Param({"0", "50", "500"})
    public int openBeside;

    /** Writes the tree, starts its writer, discovers the meter and opens the windows beside. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
      tree = Files.createTempDirectory("mesh-bench-powercap");
      Path zone = Files.createDirectories(tree.resolve("intel-rapl:0"));
      Files.writeString(zone.resolve("name"), "package-0\n");
      Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
      Files.writeString(zone.resolve("energy_uj"), "0\n");
      Path energy = zone.resolve("energy_uj");
      Path staging = tree.resolve("energy_uj.next");
      writer =
          Thread.ofPlatform()
              .daemon()
              .name("fake-rapl-writer")
              .start(
                  () -> {
                    long uj = 0;
                    while (!stop.get()) {
                      uj += 15_000; // 15 W at 1 ms
                      try {
                        // Write aside and rename, so a reader never sees a half-written file
                        // (sysfs never shows one either).
                        Files.writeString(staging, uj + "\n");
                        Files.move(
                            staging,
                            energy,
                            StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                        Thread.sleep(1);
                      } catch (IOException | InterruptedException e) {
                        return;
                      }
                    }
                  });
      // A loaded machine can starve the writer thread, and then the probe rightly calls the fake
      // counter lumpy; probe at a coarser cadence and retry a few times before giving up.
      DiscoveryOptions options =
          DiscoveryOptions.defaults()
              .withRaplRoot(tree)
              .withoutNvml()
              .withoutIoReport()
              // The fake machine's one package, whatever host this runs on: a second package of
              // the host's, with no counter in the tree, would make every window the estimate.
              .withHostPackages(new HostPackages(CPU, true))
              .withLiveness(new LivenessPolicy(Duration.ofMillis(50), Duration.ofMillis(500)));
      MeterDiscovery found = MeterDiscovery.discover(options);
      for (int attempt = 1; attempt < 5 && !found.hardwareGraded(); attempt++) {
        found = MeterDiscovery.discover(options);
      }
      if (!(found.meter() instanceof CounterMeter rapl)) {
        throw new IllegalStateException("fake RAPL tree did not prove live: " + found.counters());
      }
      meter = rapl;
      for (int i = 0; i < openBeside; i++) {
        beside.add(meter.open(CPU));
      }
    }

    /** Stops the writer, closes the windows beside and the meter, and deletes the tree. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException, InterruptedException {
      stop.set(true);
      writer.join();
      beside.forEach(MeterWindow::abandon);
      meter.close();
      try (Stream<Path> paths = Files.walk(tree)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The floor: what any window must cost at least, two clock reads. */
  @Benchmark
  public void bareNanoTimePair(Blackhole bh) {
    long start = System.nanoTime();
    bh.consume(System.nanoTime() - start);
  }

  /** The estimator's window: no counters, a constant window object. */
  @Benchmark
  public Energy estimatorWindow(Estimator state) {
    return state.meter.open(CPU).close(1_000);
  }

  /** A RAPL window on the fake tree, graded from a live counter. */
  @Benchmark
  public Energy raplFakeTreeWindow(FakeRapl state) {
    return state.meter.open(CPU).close(1_000);
  }
}
