package org.meshjava.energy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads one small sysfs attribute, or lists a sysfs folder. A seam for tests: the build runs as
 * root, for whom file permissions never deny a read or a listing, so the unreadable-counter and
 * unlistable-zone cases are scripted through it.
 */
interface SysfsReader {

  /** Returns the attribute's text, trimmed. */
  String read(Path file) throws IOException;

  /**
   * Returns the entries of {@code folder}, unsorted; the real listing unless a test scripts one.
   *
   * @throws IOException if the folder cannot be listed
   */
  default List<Path> list(Path folder) throws IOException {
    try (Stream<Path> entries = Files.list(folder)) {
      return entries.toList();
    }
  }

  /** Reads the real file. */
  SysfsReader FILES =
      file -> new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
}
