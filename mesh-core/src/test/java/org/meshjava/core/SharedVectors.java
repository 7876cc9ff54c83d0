package org.meshjava.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the external vectors (data other projects published, see {@code vectors/README.md}) that
 * this module's tests use. They are vendored as test resources under {@code vectors/}, so a fresh
 * clone needs nothing outside the repository.
 */
public final class SharedVectors {
  private SharedVectors() {}

  /** Returns the folder that holds the vendored vectors on the test class path. */
  public static Path root() {
    URL url = SharedVectors.class.getResource("/vectors");
    if (url == null) {
      throw new IllegalStateException("no vectors folder on the test class path");
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("vectors folder has no file path: " + url, e);
    }
  }

  /** Returns the text of {@code relative} under the vendored vectors folder. */
  public static String read(String relative) {
    Path file = root().resolve(relative);
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read vector file " + file, e);
    }
  }
}
