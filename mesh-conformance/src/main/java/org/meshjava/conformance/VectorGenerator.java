package org.meshjava.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.meshjava.steward.ServeException;

/**
 * Writes the published vectors: for each {@link Vector}, {@code signed_core.hex}, {@code
 * envelope.hex} and {@code meta.json} under {@code <dir>/<name>/}.
 *
 * <p>Usage: {@code VectorGenerator [dir]}, default {@code conformance/v1}.
 */
public final class VectorGenerator {
  private VectorGenerator() {}

  /** Generates into {@code dir}. */
  public static void generate(Path dir) throws IOException, ServeException {
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    for (Vector v : Vector.v1()) {
      Vector.Files files = v.generate();
      Path out = dir.resolve(v.name());
      Files.createDirectories(out);
      Files.writeString(
          out.resolve("signed_core.hex"), files.signedCoreHex() + "\n", StandardCharsets.US_ASCII);
      Files.writeString(
          out.resolve("envelope.hex"), files.envelopeHex() + "\n", StandardCharsets.US_ASCII);
      Files.writeString(
          out.resolve("meta.json"),
          json.writeValueAsString(files.meta()) + "\n",
          StandardCharsets.UTF_8);
      for (var extra : files.extra().entrySet()) {
        Path file = out.resolve(extra.getKey());
        Files.createDirectories(file.getParent());
        Files.write(file, extra.getValue());
      }
    }
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "conformance/v1");
    generate(dir);
    System.out.println("wrote " + Vector.v1().size() + " vectors under " + dir.toAbsolutePath());
  }
}
