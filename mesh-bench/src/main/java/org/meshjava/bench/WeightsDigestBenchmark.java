package org.meshjava.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.internal.Blake3Large;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigest;

/**
 * Weights-digest throughput (§3.6) beside {@code b3sum} on the same file, in one run.
 *
 * <p>Creates a model directory holding {@code config.json} and a {@code model.safetensors} of the
 * given size (default 1 GiB) of pseudo-random bytes, then, best of {@code runs} and interleaved so
 * that load on the machine hits both sides alike, times:
 *
 * <ul>
 *   <li>{@link ModelDirectory#digest} on one thread vs {@code b3sum --num-threads 1};
 *   <li>{@link ModelDirectory#digest} on all processors vs {@code b3sum} (all threads);
 *   <li>once, the first digest in a fresh JVM (before the JIT has compiled the kernel), and the
 *       BouncyCastle streaming hash the digest used before {@link Blake3Large}.
 * </ul>
 *
 * <p>It checks that every side gives the same BLAKE3 and prints MB/s and the ratios (targets: ours
 * ≥ 1/2 of b3sum in both pairs). Without {@code b3sum} on the PATH (Debian: {@code apt-get install
 * b3sum}) it says so loudly and prints our figures alone. Which kernel ran is printed: the vector
 * one needs {@code --add-modules jdk.incubator.vector}. Not a JMH benchmark: one run reads a whole
 * gigabyte, far longer than JIT warm-up, and the comparison is with a process.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp mesh-bench/target/benchmarks.jar
 * org.meshjava.bench.WeightsDigestBenchmark [MiB] [runs] [dir]}
 */
public final class WeightsDigestBenchmark {
  private WeightsDigestBenchmark() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("mesh-weights-bench");
    Files.createDirectories(dir);
    Path weights = dir.resolve(ModelDirectory.SINGLE);
    long bytes = mib << 20;
    if (!Files.exists(weights) || Files.size(weights) != bytes) {
      write(weights, bytes);
    }
    Files.writeString(dir.resolve(ModelDirectory.CONFIG), "{}", StandardCharsets.UTF_8);
    int cores = Runtime.getRuntime().availableProcessors();
    System.out.printf(
        "file: %s, %d MiB; kernel: %s; %d processors%n", weights, mib, Blake3Large.kernel(), cores);
    boolean b3sum = b3sum(weights, 1) != null;
    if (!b3sum) {
      System.out.println(
          "*** b3sum is NOT on the PATH: no ratios. Install it (Debian: apt-get"
              + " install b3sum) to compare. ***");
    }
    // Page the file in once so that neither side pays for the disk.
    b3sum(weights, cores);

    long t0 = System.nanoTime();
    String expected =
        fileHash(
            ModelDirectory.digest(
                dir, ModelDirectory.Links.CONFINED, 1, ModelDirectory.Progress.NONE));
    double cold = seconds(t0);
    System.out.printf(
        "first digest in this JVM (JIT cold), 1 thread: %.2f s, %.0f MB/s%n",
        cold, bytes / 1e6 / cold);

    double[] ours1 = {Double.MAX_VALUE};
    double[] oursAll = {Double.MAX_VALUE};
    double[] theirs1 = {Double.MAX_VALUE};
    double[] theirsAll = {Double.MAX_VALUE};
    // CPU time of the one-thread pair, summed over the runs: ours is this thread's (a one-thread
    // digest runs on the caller), b3sum's the reaped children's user+system time. Unlike wall
    // time it hardly moves when other processes load the machine.
    var threadBean = java.lang.management.ManagementFactory.getThreadMXBean();
    long oursCpu = 0;
    long theirsCpu = 0;
    for (int i = 0; i < runs; i++) {
      long c0 = threadBean.getCurrentThreadCpuTime();
      time(
          ours1,
          () ->
              check(
                  expected,
                  fileHash(
                      ModelDirectory.digest(
                          dir, ModelDirectory.Links.CONFINED, 1, ModelDirectory.Progress.NONE)),
                  "ours, 1 thread"));
      oursCpu += threadBean.getCurrentThreadCpuTime() - c0;
      if (b3sum) {
        long k0 = childrenCpuNanos();
        time(theirs1, () -> check(expected, b3sum(weights, 1), "b3sum --num-threads 1"));
        theirsCpu += childrenCpuNanos() - k0;
      }
      time(
          oursAll,
          () ->
              check(
                  expected,
                  fileHash(
                      ModelDirectory.digest(
                          dir, ModelDirectory.Links.CONFINED, cores, ModelDirectory.Progress.NONE)),
                  "ours, all"));
      if (b3sum) {
        time(theirsAll, () -> check(expected, b3sum(weights, 0), "b3sum"));
      }
    }
    t0 = System.nanoTime();
    check(expected, bouncyCastle(weights), "BouncyCastle");
    double bc = seconds(t0);

    report("mesh-java digest, 1 thread", bytes, ours1[0]);
    if (b3sum) {
      report("b3sum --num-threads 1", bytes, theirs1[0]);
    }
    report("mesh-java digest, " + cores + " threads", bytes, oursAll[0]);
    if (b3sum) {
      report("b3sum (all threads)", bytes, theirsAll[0]);
    }
    report("BouncyCastle streaming (before), 1 thread", bytes, bc);
    if (b3sum) {
      System.out.printf(
          "ratio ours/b3sum, one thread:  %.2f (target >= 0.5)%n", theirs1[0] / ours1[0]);
      System.out.printf(
          "ratio ours/b3sum, all threads: %.2f (target >= 0.5)%n", theirsAll[0] / oursAll[0]);
      if (theirsCpu > 0) {
        System.out.printf(
            "one thread, per CPU-second: ours %.0f MB, b3sum %.0f MB: ratio %.2f"
                + " (b3sum's CPU time counted in 10 ms ticks)%n",
            runs * bytes / 1e6 / (oursCpu / 1e9),
            runs * bytes / 1e6 / (theirsCpu / 1e9),
            (double) theirsCpu / oursCpu);
      }
    }
    System.out.printf("ours (1 thread) / BouncyCastle: %.1fx%n", bc / ours1[0]);
  }

  private interface Timed {
    void run() throws Exception;
  }

  private static void time(double[] best, Timed t) throws Exception {
    long t0 = System.nanoTime();
    t.run();
    best[0] = Math.min(best[0], seconds(t0));
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void report(String what, long bytes, double s) {
    System.out.printf("%-44s %6.3f s, %6.0f MB/s%n", what + ":", s, bytes / 1e6 / s);
  }

  /** User+system time of this process's reaped children, from {@code /proc/self/stat}; or 0. */
  private static long childrenCpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // Fields 16 and 17 (cutime, cstime), counted from 1 with the pid: here 13 and 14.
      return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static void check(String expected, String got, String who) {
    if (!expected.equals(got)) {
      System.out.println("MISMATCH: " + who + " gave " + got + ", expected " + expected);
      System.exit(1);
    }
  }

  private static String fileHash(WeightsDigest digest) {
    return digest.files().stream()
        .filter(f -> f.path().equals(ModelDirectory.SINGLE))
        .findFirst()
        .orElseThrow()
        .digest()
        .hex();
  }

  /** The hash as the weights digest computed it before: BouncyCastle, 1 MiB reads. */
  private static String bouncyCastle(Path file) throws IOException {
    Blake3.Hasher h = Blake3.newHasher();
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf.clear()) >= 0) {
        h.update(buf.array(), 0, buf.position());
      }
    }
    return ContentId.fromDigest(h.finish()).hex();
  }

  private static void write(Path file, long bytes) throws IOException {
    SplittableRandom r = new SplittableRandom(20261129);
    byte[] buf = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long done = 0; done < bytes; done += buf.length) {
        for (int i = 0; i < buf.length; i += 8) {
          long v = r.nextLong();
          for (int k = 0; k < 8; k++) {
            buf[i + k] = (byte) (v >>> (8 * k));
          }
        }
        out.write(buf, 0, (int) Math.min(buf.length, bytes - done));
      }
    }
  }

  /**
   * Runs b3sum on {@code threads} threads (0: its default, all) and returns the hex hash, or null
   * if it is not installed.
   */
  private static String b3sum(Path file, int threads) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("b3sum", "--no-names"));
    if (threads > 0) {
      cmd.addAll(List.of("--num-threads", Integer.toString(threads)));
    }
    cmd.add(file.toString());
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return null;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("b3sum failed: " + out);
    }
    return out;
  }
}
