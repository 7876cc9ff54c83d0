package org.meshjava.energy;

import java.io.IOException;
import java.io.InputStream;
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

  /**
   * The most a sysfs attribute holds: one page, which is 64 KiB at most on the kernels this runs on
   * (arm64 and ppc64 with large pages; 4 KiB elsewhere).
   */
  int MAX_ATTRIBUTE_BYTES = 65_536;

  /**
   * Reads the real file, at most {@link #MAX_ATTRIBUTE_BYTES}: a file that holds more is not a
   * sysfs attribute (a root given to discovery that is not sysfs, a file replaced), and read whole
   * it took memory for all of it, and past 2 GiB threw an {@link OutOfMemoryError} into the serve
   * instead of failing the read.
   */
  SysfsReader FILES =
      file -> {
        byte[] text;
        try (InputStream in = Files.newInputStream(file)) {
          text = in.readNBytes(MAX_ATTRIBUTE_BYTES + 1);
        }
        if (text.length > MAX_ATTRIBUTE_BYTES) {
          throw new IOException(
              file + " holds more than " + MAX_ATTRIBUTE_BYTES + " bytes: not a sysfs attribute");
        }
        return new String(text, StandardCharsets.US_ASCII).trim();
      };
}
