package org.meshjava.core.weights;

import java.util.Objects;
import org.meshjava.core.ContentId;

/**
 * One file a forward pass reads: its path relative to the model directory and the BLAKE3 of its
 * bytes. Immutable and thread-safe.
 *
 * @param path relative, {@code /}-separated, with no empty, {@code .} or {@code ..} segment
 * @param digest BLAKE3 of the file's whole contents
 */
public record WeightsFile(String path, ContentId digest) {

  /**
   * Validates the path.
   *
   * @throws IllegalArgumentException if the path is empty, absolute, holds a backslash, a colon or
   *     a control character, or has an empty, {@code .} or {@code ..} segment
   */
  public WeightsFile {
    Objects.requireNonNull(digest, "digest");
    String problem = RelativePath.problem(path);
    if (problem != null) {
      throw new IllegalArgumentException("weights file path '" + path + "': " + problem);
    }
  }
}
