package org.meshjava.steward;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.HostPackages;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.LivenessPolicy;

/**
 * A fake powercap tree with one package zone ({@code cpu_package:0}) whose counter a thread
 * advances about once a millisecond while powered, as RAPL does, so that discovery over it ({@link
 * #options()}) proves the counter live as it would a machine's. The machine has one CPU, on that
 * package, in a fake {@code /proc} status and {@code /sys/devices/system/cpu} tree beside the
 * powercap tree, so a serve's window covers package 0 alone whatever host the test runs on.
 */
final class FakePowercap implements AutoCloseable {
  private final Path root;
  private final Path zone;
  private final Path energy;
  private final Path status;
  private final Path cpus;
  private long uj;
  private volatile boolean powered;
  private @Nullable Thread writer;

  FakePowercap(Path root) throws IOException {
    this.root = root;
    this.zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
    this.energy = zone.resolve("energy_uj");
    Files.writeString(energy, "0\n");
    Path host = Files.createDirectories(root.resolveSibling(root.getFileName() + "-host"));
    this.status = Files.writeString(host.resolve("status"), "Cpus_allowed_list:\t0\n");
    this.cpus = Files.createDirectories(host.resolve("cpu"));
    Files.writeString(cpus.resolve("online"), "0\n");
    Path topology = Files.createDirectories(cpus.resolve("cpu0").resolve("topology"));
    Files.writeString(topology.resolve("physical_package_id"), "0\n");
  }

  /**
   * Discovery over this tree alone. Samples far apart, so that a writer held off the CPU for a
   * while still advances the counter in every interval of a probe.
   */
  DiscoveryOptions options() {
    return DiscoveryOptions.defaults()
        .withRaplRoot(root)
        .withoutNvml()
        .withoutIoReport()
        .withHostPackages(HostPackages.read(status, cpus))
        .withLiveness(new LivenessPolicy(Duration.ofMillis(150), Duration.ofMillis(900)));
  }

  /** Starts advancing the counter, returning once it has advanced 20 times. */
  void power() throws InterruptedException {
    CountDownLatch advancing = new CountDownLatch(20);
    powered = true;
    writer =
        Thread.ofPlatform()
            .daemon()
            .name("fake-rapl")
            .start(
                () -> {
                  // Replaced whole, so that a read never sees a half-written number.
                  Path next = zone.resolve("energy_uj.next");
                  try {
                    while (powered) {
                      uj += 1_000;
                      Files.writeString(next, uj + "\n");
                      Files.move(
                          next,
                          energy,
                          StandardCopyOption.ATOMIC_MOVE,
                          StandardCopyOption.REPLACE_EXISTING);
                      advancing.countDown();
                      Thread.sleep(1);
                    }
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    if (!advancing.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the fake counter did not advance");
    }
  }

  /** Stops the counter, returning once it no longer changes. */
  void unplug() throws InterruptedException {
    powered = false;
    Thread w = writer;
    if (w != null) {
      w.join(TimeUnit.SECONDS.toMillis(10));
      writer = null;
    }
  }

  @Override
  public void close() {
    try {
      unplug();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
