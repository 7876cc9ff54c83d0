package org.meshjava.receipt;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the external vectors under {@code shared/vectors}, which sit beside the project rather
 * than inside it: walks up from the working directory until a directory holds {@code
 * shared/vectors}. Test support only.
 */
final class SharedVectors {
  private SharedVectors() {}

  /** Returns {@code shared/vectors/<folder>}, failing the test clearly when it cannot be found. */
  static Path folder(String folder) {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve("vectors");
      if (Files.isDirectory(candidate)) {
        Path found = candidate.resolve(folder);
        if (!Files.isDirectory(found)) {
          throw new IllegalStateException(found + " is missing");
        }
        return found;
      }
    }
    throw new IllegalStateException("no shared/vectors above " + start);
  }
}
