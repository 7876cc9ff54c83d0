package org.meshjava.energy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads one small sysfs attribute. A seam for tests: the build runs as root, for whom file
 * permissions never deny a read, so the unreadable-counter case is scripted through it.
 */
interface SysfsReader {

  /** Returns the attribute's text, trimmed. */
  String read(Path file) throws IOException;

  /** Reads the real file. */
  SysfsReader FILES =
      file -> new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
}
