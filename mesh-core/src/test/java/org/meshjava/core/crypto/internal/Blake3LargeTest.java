package org.meshjava.core.crypto.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.SharedVectors;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.Blake3VectorsTest;

/**
 * {@link Blake3Large} on both kernels: the official vectors in every mode and length, and a
 * differential test against BouncyCastle ({@link Blake3}) at chunk, unit and window boundaries and
 * random lengths, in memory and over files on one and several threads. Every failing case is
 * reported, not only the first.
 */
class Blake3LargeTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final int CHUNK = Blake3Compression.CHUNK_LEN;
  private static final int UNIT = Blake3Large.UNIT_BYTES;

  private static JsonNode vectors;
  private static byte[] key;
  private static String context;

  @BeforeAll
  static void load() throws Exception {
    vectors = new ObjectMapper().readTree(SharedVectors.read("blake3/test_vectors.json"));
    key = vectors.get("key").asText().getBytes(StandardCharsets.US_ASCII);
    context = vectors.get("context_string").asText();
  }

  /** Both kernels; the vector one is present because the test JVM adds the module. */
  static List<ChunkKernel> kernels() {
    assertThat(VectorChunkKernel.INSTANCE)
        .as("the test JVM runs with jdk.incubator.vector and a vector of 4+ ints")
        .isNotNull();
    return List.of(ScalarChunkKernel.INSTANCE, VectorChunkKernel.INSTANCE);
  }

  private static Blake3Large.Hasher hasher(String mode, ChunkKernel kernel) {
    return switch (mode) {
      case "hash" -> new Blake3Large.Hasher(new Blake3Mode(Blake3Compression.iv(), 0), kernel);
      case "keyed_hash" ->
          new Blake3Large.Hasher(new Blake3Mode(words(key), Blake3Compression.KEYED_HASH), kernel);
      case "derive_key" -> {
        byte[] contextKey =
            new Blake3Large.Hasher(
                    new Blake3Mode(Blake3Compression.iv(), Blake3Compression.DERIVE_KEY_CONTEXT),
                    kernel)
                .update(context.getBytes(StandardCharsets.UTF_8))
                .finish();
        yield new Blake3Large.Hasher(
            new Blake3Mode(words(contextKey), Blake3Compression.DERIVE_KEY_MATERIAL), kernel);
      }
      default -> throw new IllegalArgumentException(mode);
    };
  }

  private static int[] words(byte[] b) {
    int[] w = new int[b.length / 4];
    for (int i = 0; i < w.length; i++) {
      w[i] =
          (b[4 * i] & 0xff)
              | (b[4 * i + 1] & 0xff) << 8
              | (b[4 * i + 2] & 0xff) << 16
              | (b[4 * i + 3] & 0xff) << 24;
    }
    return w;
  }

  /** BouncyCastle's BLAKE3, the independent implementation ours is checked against. */
  static byte[] bouncyCastle(byte[] keyOrNull, byte[] in) {
    org.bouncycastle.crypto.digests.Blake3Digest d =
        new org.bouncycastle.crypto.digests.Blake3Digest(256);
    if (keyOrNull != null) {
      d.init(org.bouncycastle.crypto.params.Blake3Parameters.key(keyOrNull.clone()));
    }
    d.update(in, 0, in.length);
    byte[] out = new byte[32];
    d.doFinal(out, 0);
    return out;
  }

  @Test
  void shortInputs_throughBlake3_matchBouncyCastle_atEveryLengthUpTo3Chunks() {
    // Blake3 (content ids, envelopes) runs this code on the scalar kernel: every length across
    // the block and chunk boundaries of short messages, plain and keyed.
    byte[] data = new byte[3 * CHUNK + 1];
    new SplittableRandom(5).nextBytes(data);
    byte[] k = Arrays.copyOf(data, 32);
    List<Integer> failures = new ArrayList<>();
    for (int len = 0; len <= data.length; len++) {
      byte[] in = Arrays.copyOf(data, len);
      if (!Arrays.equals(Blake3.hash(in), bouncyCastle(null, in))
          || !Arrays.equals(Blake3.keyedHash(k, in), bouncyCastle(k, in))) {
        failures.add(len);
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void everyOfficialVector_inEveryMode_onBothKernels() {
    List<String> failures = new ArrayList<>();
    int cases = 0;
    for (ChunkKernel kernel : kernels()) {
      for (String mode : List.of("hash", "keyed_hash", "derive_key")) {
        for (JsonNode c : vectors.get("cases")) {
          int len = c.get("input_len").asInt();
          byte[] expected = HEX.parseHex(c.get(mode).asText());
          byte[] in = Blake3VectorsTest.input(len);
          String name = kernel.describe() + " " + mode + " input_len " + len;
          cases++;
          if (!Arrays.equals(hasher(mode, kernel).update(in).finish(expected.length), expected)) {
            failures.add(name + ": extended output differs");
          }
          if (!Arrays.equals(
              hasher(mode, kernel).update(in).finish(), Arrays.copyOf(expected, 32))) {
            failures.add(name + ": 32-byte output differs");
          }
          Blake3Large.Hasher h = hasher(mode, kernel);
          for (int off = 0; off < len; ) {
            int n = Math.min(len - off, 1 + (off * 7) % 1029);
            h.update(in, off, n);
            off += n;
          }
          if (!Arrays.equals(h.finish(), Arrays.copyOf(expected, 32))) {
            failures.add(name + ": streamed output differs");
          }
        }
      }
    }
    assertThat(cases).as("vector cases run").isGreaterThanOrEqualTo(2 * 3 * 30);
    assertThat(failures).isEmpty();
  }

  @Test
  void publicFactories_matchTheVectors() {
    JsonNode last = vectors.get("cases").get(vectors.get("cases").size() - 1);
    byte[] in = Blake3VectorsTest.input(last.get("input_len").asInt());
    assertThat(HEX.formatHex(Blake3Large.newHasher().update(in).finish()))
        .isEqualTo(last.get("hash").asText().substring(0, 64));
    assertThat(HEX.formatHex(Blake3Large.newKeyedHasher(key).update(in).finish()))
        .isEqualTo(last.get("keyed_hash").asText().substring(0, 64));
    assertThat(HEX.formatHex(Blake3Large.newDeriveKeyHasher(context).update(in).finish()))
        .isEqualTo(last.get("derive_key").asText().substring(0, 64));
  }

  /** Lengths at every boundary the implementation has: block, chunk, unit, units that merge. */
  static List<Integer> boundaryLengths(SplittableRandom random) {
    List<Integer> lengths = new ArrayList<>();
    for (int base :
        new int[] {
          0,
          64,
          CHUNK,
          2 * CHUNK,
          16 * CHUNK,
          17 * CHUNK,
          UNIT,
          2 * UNIT,
          3 * UNIT,
          4 * UNIT + 5 * CHUNK
        }) {
      for (int d = -1; d <= 1; d++) {
        if (base + d >= 0) {
          lengths.add(base + d);
        }
      }
    }
    for (int i = 0; i < 8; i++) {
      lengths.add(random.nextInt(5 * UNIT));
    }
    return lengths;
  }

  @Test
  void differential_againstBouncyCastle_atBoundariesAndRandomLengths() {
    long seed = 20261201L;
    SplittableRandom random = new SplittableRandom(seed);
    byte[] data = new byte[5 * UNIT + CHUNK];
    random.nextBytes(data);
    byte[] bcKey = new byte[32];
    random.nextBytes(bcKey);
    List<String> failures = new ArrayList<>();
    for (int len : boundaryLengths(random)) {
      byte[] in = Arrays.copyOf(data, len);
      byte[] expected = bouncyCastle(null, in);
      byte[] expectedKeyed = bouncyCastle(bcKey, in);
      for (ChunkKernel kernel : kernels()) {
        String name = kernel.describe() + " length " + len + " (seed " + seed + ")";
        if (!Arrays.equals(hasher("hash", kernel).update(in).finish(), expected)) {
          failures.add(name + ": one update differs");
        }
        Blake3Large.Hasher pieces = hasher("hash", kernel);
        for (int off = 0; off < len; ) {
          int n = Math.min(len - off, 1 + random.nextInt(3 * CHUNK));
          pieces.update(in, off, n);
          off += n;
        }
        if (!Arrays.equals(pieces.finish(), expected)) {
          failures.add(name + ": random pieces differ");
        }
        Blake3Large.Hasher keyed =
            new Blake3Large.Hasher(
                new Blake3Mode(words(bcKey), Blake3Compression.KEYED_HASH), kernel);
        if (!Arrays.equals(keyed.update(in).finish(), expectedKeyed)) {
          failures.add(name + ": keyed differs");
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void files_onOneAndSeveralThreads_matchBouncyCastle(@TempDir Path dir) throws IOException {
    SplittableRandom random = new SplittableRandom(17);
    List<String> failures = new ArrayList<>();
    // Past a 64 MiB window too: small windows are what the constant is, so this is one long file.
    int windowed = Blake3Large.WINDOW_UNITS * UNIT + 3 * CHUNK + 1;
    List<Integer> lengths = new ArrayList<>(boundaryLengths(random));
    lengths.add(windowed);
    byte[] data = new byte[windowed];
    random.nextBytes(data);
    Path file = dir.resolve("w");
    for (int len : lengths) {
      Files.write(file, Arrays.copyOf(data, len));
      byte[] expected =
          len == windowed
              ? Blake3Large.newHasher().update(data).finish()
              : bouncyCastle(null, Arrays.copyOf(data, len));
      for (ChunkKernel kernel : kernels()) {
        for (int threads : new int[] {1, 3}) {
          if (len == windowed && kernel == ScalarChunkKernel.INSTANCE && threads == 3) {
            continue; // the long file once per kernel is enough
          }
          List<Long> progress = new ArrayList<>();
          byte[] got;
          try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            got = Blake3Large.hash(ch, threads, progress::add, kernel);
          }
          String name = kernel.describe() + " threads " + threads + " length " + len;
          if (!Arrays.equals(got, expected)) {
            failures.add(name + ": differs");
          }
          if (progress.isEmpty() || progress.get(progress.size() - 1) != len) {
            failures.add(name + ": progress did not end at the file size: " + progress);
          }
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void hashFile_refusesZeroThreads(@TempDir Path dir) throws IOException {
    Path f = Files.write(dir.resolve("f"), new byte[1]);
    assertThatThrownBy(() -> Blake3Large.hash(f, 0, n -> {}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Blake3Large.hash(f, 2, n -> {})).isEqualTo(bouncyCastle(null, new byte[1]));
  }

  @Test
  void keyedHasher_whenKeyIsNot32Bytes_refuses() {
    assertThatThrownBy(() -> Blake3Large.newKeyedHasher(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void withoutTheVectorModule_theScalarKernelIsChosen() throws Exception {
    // A child JVM on the class path, without --add-modules: the vector class must never load.
    Path classes =
        Path.of(Blake3Large.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path testClasses =
        Path.of(KernelProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    Supplier<ProcessBuilder> probe =
        () ->
            new ProcessBuilder(
                    javaBin.toString(),
                    "-cp",
                    classes + java.io.File.pathSeparator + testClasses,
                    KernelProbe.class.getName())
                .redirectErrorStream(true);
    Process p = probe.get().start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("scalar " + HEX.formatHex(bouncyCastle(null, KernelProbe.INPUT)));
  }
}
