package org.meshjava.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checkout's {@code mvnw} copied into a folder beside a wrapper setting that names no Maven
 * there is: a run that gets past the wrapper's own checks ends at its refusal of that setting
 * ("distributionUrl is not valid"), without a download.
 */
final class WrapperCopy {
  private WrapperCopy() {}

  /** Copies the wrapper into {@code root}; returns the copy. */
  static Path into(Path root) throws IOException {
    Path mvnw =
        Files.copy(Path.of("..", "mvnw").toAbsolutePath().normalize(), root.resolve("mvnw"));
    Files.createDirectories(root.resolve(".mvn/wrapper"));
    Files.writeString(
        root.resolve(".mvn/wrapper/maven-wrapper.properties"),
        "distributionUrl=https://example.invalid/org/apache/maven/mesh-test/no-maven.txt\n",
        StandardCharsets.UTF_8);
    return mvnw;
  }
}
