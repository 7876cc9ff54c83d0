package org.meshjava.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.ContentId;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigest;

/**
 * Weights-digest throughput (§3.6) beside {@code b3sum} on the same file.
 *
 * <p>Creates a model directory holding {@code config.json} and a {@code model.safetensors} of the
 * given size (default 1 GiB) of pseudo-random bytes, then times, best of {@code runs}, {@link
 * ModelDirectory#digest} and {@code b3sum --num-threads 1} over the weights file, checks that both
 * give the same BLAKE3, and prints MB/s for each and the ratio. Without {@code b3sum} on the PATH
 * (Debian: {@code apt-get install b3sum}) it prints our figure alone. Not a JMH benchmark: one run
 * reads a whole gigabyte, far longer than JIT warm-up, and the comparison is with a process.
 *
 * <p>Usage: {@code java -cp mesh-bench/target/benchmarks.jar
 * org.meshjava.bench.WeightsDigestBenchmark [MiB] [runs] [dir]}
 */
public final class WeightsDigestBenchmark {
  private WeightsDigestBenchmark() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir =
        args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("mesh-weights-bench");
    Files.createDirectories(dir);
    Path weights = dir.resolve(ModelDirectory.SINGLE);
    long bytes = mib << 20;
    if (!Files.exists(weights) || Files.size(weights) != bytes) {
      write(weights, bytes);
    }
    Files.writeString(dir.resolve(ModelDirectory.CONFIG), "{}", StandardCharsets.UTF_8);
    System.out.printf("file: %s, %d MiB%n", weights, mib);

    // One small warm-up so the first timed run is not the interpreter's.
    ModelDirectory.digest(dir);
    double ours = Double.MAX_VALUE;
    WeightsDigest digest = null;
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      digest = ModelDirectory.digest(dir);
      ours = Math.min(ours, (System.nanoTime() - t0) / 1e9);
    }
    ContentId fileHash = digest.files().stream()
        .filter(f -> f.path().equals(ModelDirectory.SINGLE)).findFirst().orElseThrow().digest();
    double oursMbs = bytes / 1e6 / ours;
    System.out.printf("mesh-java ModelDirectory.digest: %.2f s, %.0f MB/s (file BLAKE3 %s)%n",
        ours, oursMbs, fileHash);

    double theirs = Double.MAX_VALUE;
    String theirHash = null;
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      theirHash = b3sum(weights);
      if (theirHash == null) {
        System.out.println("b3sum not found on PATH; install it (Debian: b3sum) for the ratio");
        return;
      }
      theirs = Math.min(theirs, (System.nanoTime() - t0) / 1e9);
    }
    double theirsMbs = bytes / 1e6 / theirs;
    System.out.printf("b3sum --num-threads 1:          %.2f s, %.0f MB/s (BLAKE3 %s)%n",
        theirs, theirsMbs, theirHash);
    if (!theirHash.equals(fileHash.hex())) {
      System.out.println("MISMATCH: the two BLAKE3 values differ");
      System.exit(1);
    }
    System.out.printf("ratio b3sum / mesh-java throughput: %.1fx%n", theirsMbs / oursMbs);
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

  /** Runs b3sum single-threaded and returns the hex hash, or null if it is not installed. */
  private static String b3sum(Path file) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("b3sum", "--num-threads", "1", "--no-names", file.toString()));
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
