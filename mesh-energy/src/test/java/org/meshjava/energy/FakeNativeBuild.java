package org.meshjava.energy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Compiles a fake native library from a C source on the test class path with gcc, into a temp dir
 * that is deleted when the JVM exits. Where gcc is missing the result says why, so the caller can
 * skip; on CI ({@code CI=true}) a missing gcc fails instead, because a skip there would pass a
 * smaller suite silently.
 *
 * @param library the compiled library, when it could be built
 * @param skipReason why it could not, otherwise
 */
record FakeNativeBuild(Optional<Path> library, String skipReason) {

  static FakeNativeBuild compile(String resource, String libraryName) {
    try {
      Path dir = Files.createTempDirectory("fake-native");
      Path source = dir.resolve(resource);
      Path out = dir.resolve(libraryName);
      // Removed when the test JVM exits, the files before their directory (the reverse order of
      // these calls); a loaded library may be unlinked on Linux and macOS.
      dir.toFile().deleteOnExit();
      source.toFile().deleteOnExit();
      out.toFile().deleteOnExit();
      try (InputStream in = FakeNativeBuild.class.getResourceAsStream(resource)) {
        if (in == null) {
          return new FakeNativeBuild(Optional.empty(), resource + " is not on the test class path");
        }
        Files.copy(in, source);
      }
      Process gcc;
      try {
        gcc =
            new ProcessBuilder(
                    "gcc", "-shared", "-fPIC", "-O1", "-o", out.toString(), source.toString())
                .redirectErrorStream(true)
                .start();
      } catch (IOException e) {
        if ("true".equals(System.getenv("CI"))) {
          // .ci/run checks for gcc too.
          throw new AssertionError("gcc is required on CI to build " + libraryName, e);
        }
        return new FakeNativeBuild(
            Optional.empty(), "gcc is not available (" + e.getMessage() + ")");
      }
      String log = new String(gcc.getInputStream().readAllBytes());
      if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
        throw new AssertionError("gcc failed to build " + libraryName + ":\n" + log);
      }
      return new FakeNativeBuild(Optional.of(out), "");
    } catch (IOException e) {
      throw new AssertionError("cannot stage " + libraryName, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
