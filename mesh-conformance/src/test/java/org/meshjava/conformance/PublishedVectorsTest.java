package org.meshjava.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublishedVectorsTest {
  /** The committed vectors, found from the module directory Maven runs tests in. */
  static Path published() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      Path candidate = p.resolve("conformance/v1");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("conformance/v1 not found above " + here);
  }

  @Test
  void vectors_regenerateByteForByte(@TempDir Path tmp) throws Exception {
    VectorGenerator.generate(tmp);
    List<String> differences = new ArrayList<>();
    for (Vector v : Vector.v1()) {
      List<String> names = new ArrayList<>(List.of("signed_core.hex", "envelope.hex", "meta.json"));
      names.addAll(new java.util.TreeSet<>(v.published().keySet()));
      for (String file : names) {
        byte[] fresh = Files.readAllBytes(tmp.resolve(v.name()).resolve(file));
        Path committed = published().resolve(v.name()).resolve(file);
        if (!Files.exists(committed) || !java.util.Arrays.equals(fresh, Files.readAllBytes(committed))) {
          differences.add(v.name() + "/" + file);
        }
      }
    }
    assertThat(differences).as("regenerated files that differ from conformance/v1").isEmpty();
  }

  @Test
  void runner_passesEveryCheckOnThePublishedVectors() throws IOException {
    List<ConformanceRunner.Check> checks = ConformanceRunner.run(published(), new MeshJavaSubject());
    assertThat(checks).hasSizeGreaterThanOrEqualTo(18);
    assertThat(checks).filteredOn(c -> !c.passed()).isEmpty();
  }

  @Test
  void runner_reportsEveryFailure_whenTheEnvelopeIsTampered(@TempDir Path tmp) throws Exception {
    copy(published().resolve("reference"), tmp.resolve("reference"));
    Path env = tmp.resolve("reference/envelope.hex");
    String hex = Files.readString(env).strip();
    // Flip the last hex digit: a signature byte.
    char last = hex.charAt(hex.length() - 1);
    Files.writeString(env, hex.substring(0, hex.length() - 1) + (last == '0' ? '1' : '0'));
    List<ConformanceRunner.Check> checks = ConformanceRunner.run(tmp, new MeshJavaSubject());
    assertThat(checks).filteredOn(c -> !c.passed()).extracting(ConformanceRunner.Check::check)
        .contains(
            "signed core seals to envelope.hex with the seed",
            "envelope verifies and carries the signed core",
            "envelope content id",
            "the full reference serve reproduces envelope.hex");
  }

  @Test
  void runner_failsTheEncodingCheck_whenTheSignedCoreDiffers(@TempDir Path tmp) throws Exception {
    copy(published().resolve("reference"), tmp.resolve("reference"));
    Path meta = tmp.resolve("reference/meta.json");
    Files.writeString(meta, Files.readString(meta).replace("\"tokens_in\" : 9", "\"tokens_in\" : 10"));
    List<ConformanceRunner.Check> checks = ConformanceRunner.run(tmp, new MeshJavaSubject());
    assertThat(checks).filteredOn(c -> !c.passed()).extracting(ConformanceRunner.Check::check)
        .containsExactly("receipt JSON encodes to signed_core.hex");
  }

  @Test
  void runner_failsTheServeCheck_whenTheSubjectDoesNotServe() throws IOException {
    MeshJavaSubject real = new MeshJavaSubject();
    ConformanceSubject noServe =
        new ConformanceSubject() {
          @Override
          public byte[] encodeSignedCore(com.fasterxml.jackson.databind.JsonNode r) throws Exception {
            return real.encodeSignedCore(r);
          }

          @Override
          public byte[] seal(byte[] core, byte[] seed) throws Exception {
            return real.seal(core, seed);
          }

          @Override
          public byte[] serve(ReferenceInputs inputs) {
            return null;
          }
        };
    List<ConformanceRunner.Check> checks = ConformanceRunner.run(published(), noServe);
    assertThat(checks).filteredOn(c -> !c.passed()).extracting(ConformanceRunner.Check::check)
        .isNotEmpty()
        .containsOnly("the full reference serve reproduces envelope.hex");
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }
}
