package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.meshjava.conformance.pack.PackGroup;

/**
 * A conformance pack's group file, as {@code mesh conformance} and the pack runner read one handed
 * to them (a pack from elsewhere, or one edited by hand): its only refusal is an {@link
 * IOException} naming the file.
 */
class PackFuzzTest {
  /** The file each input is written to; the reader takes a path. */
  private static final Path FILE = temporaryFile();

  @FuzzTest(maxDuration = "60s")
  void group(byte[] input) throws IOException {
    Files.write(FILE, input);
    Optional<PackGroup> group = Hostile.read(() -> PackGroup.read(FILE), IOException.class);
    if (group.isEmpty()) {
      return;
    }
    // A group read, written and read again is the group written: a pack survives being re-saved.
    byte[] written = group.get().toBytes();
    Files.write(FILE, written);
    if (!Arrays.equals(PackGroup.read(FILE).toBytes(), written)) {
      throw new AssertionError("a group written and read back is written differently");
    }
  }

  private static Path temporaryFile() {
    try {
      Path file = Files.createTempFile("mesh-fuzz-pack", ".json");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
