package org.meshjava.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the external vectors in the project's {@code shared/vectors} folder.
 *
 * <p>Maven runs a module's tests with the module folder as working directory, an IDE often with the
 * repository root, and a git worktree may sit beside {@code shared/} rather than contain it. So the
 * lookup walks up from the working directory and takes the first ancestor that has a {@code
 * shared/vectors} folder.
 */
public final class SharedVectors {
  private SharedVectors() {}

  /** Returns the {@code shared/vectors} folder; fails the test with the places it looked. */
  public static Path root() {
    Path start = Path.of("").toAbsolutePath();
    StringBuilder tried = new StringBuilder();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path below = dir.resolve("shared").resolve("vectors");
      if (Files.isDirectory(below)) {
        return below;
      }
      tried.append("\n  ").append(below);
    }
    throw new IllegalStateException(
        "no shared/vectors folder above " + start + "; looked at:" + tried);
  }

  /** Returns the text of {@code relative} under {@code shared/vectors}. */
  public static String read(String relative) {
    Path file = root().resolve(relative);
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read vector file " + file, e);
    }
  }
}
