package org.meshjava.receipt;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the external vectors (data other projects published, see {@code vectors/README.md}) that
 * this module's tests use. They are vendored as test resources under {@code vectors/}, so a fresh
 * clone needs nothing outside the repository. Test support only.
 */
public final class SharedVectors {
  private SharedVectors() {}

  /**
   * Returns {@code vectors/<folder>} on the test class path, failing clearly when it is missing.
   */
  public static Path folder(String folder) {
    URL url = SharedVectors.class.getResource("/vectors/" + folder);
    if (url == null) {
      throw new IllegalStateException("vectors/" + folder + " is not on the test class path");
    }
    try {
      Path found = Path.of(url.toURI());
      if (!Files.isDirectory(found)) {
        throw new IllegalStateException(found + " is not a folder");
      }
      return found;
    } catch (URISyntaxException e) {
      throw new IllegalStateException("vectors/" + folder + " has no file path: " + url, e);
    }
  }
}
